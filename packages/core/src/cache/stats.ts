/** `auth.cache.stats()`: what the cache did since `createAuth`. */
export interface CacheStats {
  /** Lookups answered from memory. */
  hits: number;
  /** Lookups that went to the store (absent, expired, or bypassed). */
  misses: number;
  /** Invalidations heard from the carrier (this instance's own included). */
  invalidationsReceived: number;
  /** Invalidations this instance published (changes it committed that end or alter a cached lookup). */
  invalidationsPublished: number;
  /** Entries held now. */
  entries: number;
  /** Whether lookups currently go around the cache (the carrier is down, or has not yet started listening). */
  bypassed: boolean;
  /** Milliseconds spent bypassed in total (the current stretch included). */
  bypassedMs: number;
  /** How often the carrier connection was lost. */
  carrierLosses: number;
}
