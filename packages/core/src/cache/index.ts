export { inProcessCacheBus } from "./carrier.ts";
export type { CacheCarrier, CacheCarrierListener } from "./carrier.ts";
export { CACHE_SCHEMA, CACHE_OPTION_SHAPE, CACHE_DEFAULTS } from "./options.ts";
export type { CacheOptions } from "./options.ts";
export type { CacheStats } from "./stats.ts";
export { encodeInvalidations } from "./invalidations.ts";
export type { AuthCache } from "./auth-cache.ts";
