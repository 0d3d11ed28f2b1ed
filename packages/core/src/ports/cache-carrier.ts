/**
 * What a carrier tells the lookup cache: each invalidation any instance published (this one's included), and
 * whether it can currently hear them. Until `up` is called, and from a `down` until the next `up`, the cache is
 * bypassed: an instance that may have missed an invalidation never answers from memory.
 */
export interface CacheCarrierListener {
  message(payload: string): void;
  up(): void;
  down(reason: string): void;
}

/**
 * Delivers cache invalidations between every auth instance that shares a database: PostgreSQL `LISTEN/NOTIFY`
 * (the pg store), Redis pub/sub (`redisCacheCarrier` from `@latchkey/redis-store`), or in-process (the memory
 * store, a single-process libSQL file). A store offers its own through `Store.cacheCarrier`; `cache.carrier`
 * overrides it.
 *
 * @example
 * const carrier: CacheCarrier = {
 *   start(listener) { bus.add(listener); listener.up(); },
 *   async publish(payload) { for (const l of bus) l.message(payload); },
 *   async close() {},
 * };
 */
export interface CacheCarrier {
  /** Starts listening (once); reports through `listener`. Must not throw: a failure is a `down`. */
  start(listener: CacheCarrierListener): void;
  /** Sends `payload` to every listening instance. Rejects when it could not be sent. */
  publish(payload: string): Promise<void>;
  /** Stops listening and releases the carrier's connections. */
  close(): Promise<void>;
}
