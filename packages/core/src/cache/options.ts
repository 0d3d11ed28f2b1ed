import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { applySchema, defaulted, optional, shapeOf, type InputOf } from "../config/schema.ts";
import type { Store } from "../ports/store.ts";
import type { CacheCarrier } from "./carrier.ts";

/** The one definition of `createAuth({ cache })`'s options: type, default, check, docs row (docs/options.md). */
export const CACHE_SCHEMA = {
  /** the longest an entry lives, whatever the carrier says */
  ttl: defaulted<Duration>("30s", {
    check: (v, field) => {
      if (parseDuration(v, field) <= 0) throw new AuthConfigError(field, "must be positive");
    },
  }),
  /** entries kept (sessions and API keys together; least recently used go first) */
  maxEntries: defaulted<number>(10_000, {
    check: (v, field) => {
      if (!Number.isInteger(v) || v < 1) throw new AuthConfigError(field, "must be a positive integer");
    },
  }),
  /**
   * how invalidations reach the other instances: PostgreSQL `LISTEN/NOTIFY` (not through a transaction pooler),
   * in-process (memory; a libSQL file, which reaches only this process: refused while another process has the file
   * open), or `redisCacheCarrier({ url })` from `@latchkey/redis-store`; see [cache.md](cache.md#carriers)
   * @defaultValue the store's
   */
  carrier: optional<CacheCarrier>({
    check: (v, field) => {
      if (!isCarrier(v)) throw new AuthConfigError(field, "must be a cache carrier, e.g. redisCacheCarrier({ url })");
    },
  }),
  /**
   * only for a store without a carrier (D1): with `ttl` at most `"5s"`, accepts that a revocation reaches other
   * instances only when their entry expires (a revoked session or key keeps working there until then)
   * @defaultValue `false`
   */
  acceptRevocationDelay: optional<boolean>({
    check: (v, field) => {
      if (typeof v !== "boolean") throw new AuthConfigError(field, "must be a boolean");
    },
  }),
};

/** `createAuth({ cache })`: an in-process cache of session lookups and API-key reads that every revocation reaches. */
export type CacheOptions = InputOf<typeof CACHE_SCHEMA>;

/** Every key `cache` accepts (from `CACHE_SCHEMA`). */
export const CACHE_OPTION_SHAPE = shapeOf(CACHE_SCHEMA);

/** The validated cache settings; `carrier` null means "no invalidation between instances" (accepted explicitly). */
export interface ResolvedCacheOptions {
  ttlMs: number;
  maxEntries: number;
  carrier: CacheCarrier | null;
}

export const CACHE_DEFAULTS = {
  ttlMs: parseDuration(CACHE_SCHEMA.ttl.default, "cache.ttl"),
  maxEntries: CACHE_SCHEMA.maxEntries.default,
} as const;
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
  const {
    ttl,
    maxEntries,
    carrier: given,
    acceptRevocationDelay: accept,
  } = applySchema(CACHE_SCHEMA, options, "cache");
  const ttlMs = parseDuration(ttl, "cache.ttl");
  const carrier = given ?? store.cacheCarrier?.() ?? null;
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
