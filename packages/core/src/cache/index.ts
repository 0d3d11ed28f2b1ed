export { inProcessCacheBus } from "./carrier.ts";
export type { CacheCarrier, CacheCarrierListener } from "./carrier.ts";
export { CACHE_SCHEMA, CACHE_OPTION_SHAPE, CACHE_DEFAULTS } from "./options.ts";
export type { CacheOptions } from "./options.ts";
export type { CacheStats } from "./lookup-cache.ts";
export { encodeInvalidations } from "./lookup-cache.ts";
export type { AuthCache } from "./auth-cache.ts";
