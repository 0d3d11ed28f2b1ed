import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import type { OptionShape } from "../config/closed-options.ts";
import type { Store } from "../ports/store.ts";
import type { CacheCarrier } from "./carrier.ts";

/** `createAuth({ cache })`: an in-process cache of session lookups and API-key reads that every revocation reaches. */
export interface CacheOptions {
  /** The longest any entry lives, whatever the carrier says. Default "30s". */
  ttl?: Duration;
  /** Entries kept (sessions and API keys together; least recently used go first). Default 10,000. */
  maxEntries?: number;
  /**
   * How invalidations reach the other instances. Default: the store's own (PostgreSQL `LISTEN/NOTIFY`, in-process
   * for the memory store and a libSQL file). `redisCacheCarrier({ url })` from `@latchkey/redis-store` for Redis.
   */
  carrier?: CacheCarrier;
  /**
   * Only for a store without a carrier (D1): answers from the cache with no invalidation between instances, so a
   * revoked session or key keeps working on another instance for up to `ttl` (at most 5 s). See docs/cache.md.
   */
  acceptRevocationDelay?: boolean;
}

export const CACHE_OPTION_SHAPE: OptionShape = {
  ttl: true,
  maxEntries: true,
  carrier: true,
  acceptRevocationDelay: true,
};

/** The validated cache settings; `carrier` null means "no invalidation between instances" (accepted explicitly). */
export interface ResolvedCacheOptions {
  ttlMs: number;
  maxEntries: number;
  carrier: CacheCarrier | null;
}

export const CACHE_DEFAULTS = { ttlMs: 30_000, maxEntries: 10_000 } as const;
/** The longest `ttl` a cache without a carrier may have. */
const MAX_TTL_WITHOUT_CARRIER_MS = 5000;

function isCarrier(value: unknown): value is CacheCarrier {
  const c = value as Partial<CacheCarrier> | null;
  return (
    typeof c === "object" &&
    c !== null &&
    typeof c.start === "function" &&
    typeof c.publish === "function" &&
    typeof c.close === "function"
  );
}

/**
 * Validates `cache` against the store: null when the cache is off. A store without a carrier (D1) is refused
 * unless `ttl` is at most 5 s and `acceptRevocationDelay: true` says the revocation lag is understood.
 */
export function resolveCacheOptions(options: CacheOptions | undefined, store: Store): ResolvedCacheOptions | null {
  if (options === undefined) return null;
  if (options === null || typeof options !== "object")
    throw new AuthConfigError("cache", "must be an object ({ ttl, maxEntries })");
  const ttlMs = options.ttl === undefined ? CACHE_DEFAULTS.ttlMs : parseDuration(options.ttl, "cache.ttl");
  if (ttlMs <= 0) throw new AuthConfigError("cache.ttl", "must be positive");
  const maxEntries = options.maxEntries ?? CACHE_DEFAULTS.maxEntries;
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new AuthConfigError("cache.maxEntries", "must be a positive integer");
  if (options.carrier !== undefined && !isCarrier(options.carrier))
    throw new AuthConfigError("cache.carrier", "must be a cache carrier, e.g. redisCacheCarrier({ url })");
  const accept = options.acceptRevocationDelay;
  if (accept !== undefined && typeof accept !== "boolean")
    throw new AuthConfigError("cache.acceptRevocationDelay", "must be a boolean");
  const carrier = options.carrier ?? store.cacheCarrier?.() ?? null;
  if (carrier !== null) {
    if (accept) {
      throw new AuthConfigError(
        "cache.acceptRevocationDelay",
        "is only for a store without a cache carrier; this cache has one, so revocations reach every instance",
      );
    }
    return { ttlMs, maxEntries, carrier };
  }
  if (!accept || ttlMs > MAX_TTL_WITHOUT_CARRIER_MS)
    throw new AuthConfigError(
      "cache",
      `needs a carrier that tells every instance about revocations, and the "${store.kind}" store has none: pass ` +
        "cache.carrier (redisCacheCarrier({ url }) from @latchkey/redis-store), or, accepting that a revoked " +
        'session or API key keeps working on other instances until the entry expires, set ttl to at most "5s" ' +
        "and acceptRevocationDelay: true (docs/cache.md)",
    );
  return { ttlMs, maxEntries, carrier: null };
}
