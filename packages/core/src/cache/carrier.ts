import type { CacheCarrier, CacheCarrierListener } from "../ports/cache-carrier.ts";

export type { CacheCarrier, CacheCarrierListener } from "../ports/cache-carrier.ts";

/**
 * An in-process bus: every carrier it hands out hears every other's publications synchronously. The memory
 * store has one per store; the libSQL store one per database file in the process.
 *
 * @example
 * const bus = inProcessCacheBus();
 * const store = { ...ports, cacheCarrier: () => bus.carrier() };
 */
export function inProcessCacheBus(): { carrier(): CacheCarrier } {
  const listeners = new Set<CacheCarrierListener>();
  return {
    carrier() {
      let own: CacheCarrierListener | null = null;
      return {
        start(listener) {
          own = listener;
          listeners.add(listener);
          listener.up();
        },
        async publish(payload) {
          for (const listener of listeners) listener.message(payload);
        },
        async close() {
          if (own) listeners.delete(own);
          own = null;
        },
      };
    },
  };
}
