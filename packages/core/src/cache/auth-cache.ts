import type { Clock } from "../ports/clock.ts";
import type { Store } from "../ports/store.ts";
import type { Logger } from "../logger/logger.ts";
import { cachedStore } from "./cached-store.ts";
import { LookupCache } from "./lookup-cache.ts";
import type { CacheStats } from "./stats.ts";
import { resolveCacheOptions, type CacheOptions } from "./options.ts";

/** `auth.cache`: the operator's view of the lookup cache. */
export interface AuthCache {
  /** Hits, misses, invalidations received, entries, and the time spent bypassed. */
  stats(): CacheStats;
  /** Drops every entry (the next lookups read the store). */
  flush(): void;
  /** Stops the carrier (its connection, if it has one). `auth.close()` calls it. */
  close(): Promise<void>;
}

/**
 * The store the services use and the cache behind it (the store itself and null when `options` is undefined);
 * `start` starts the carrier.
 */
export function cacheOver(
  options: CacheOptions | undefined,
  store: Store,
  clock: Clock,
  logger: Logger,
): { store: Store; cache: AuthCache | null; start(): void } {
  const resolved = resolveCacheOptions(options, store);
  if (!resolved) return { store, cache: null, start: () => undefined };
  const lookups = new LookupCache(resolved, clock, logger);
  return {
    store: cachedStore(store, lookups),
    cache: {
      stats: () => lookups.stats(),
      flush: () => lookups.flush(),
      close: () => lookups.close(),
    },
    // Once `createAuth` can no longer throw: a carrier with a connection opens it here.
    start: () => lookups.start(),
  };
}
