/**
 * @latchkey/redis-store: Latchkey's hot counters (rate limits, lockout) in Redis or Valkey.
 *
 * @example
 * import { redisCounters } from "@latchkey/redis-store";
 */
export { redisCounters, REDIS_COUNTERS_OPTION_SHAPE, REDIS_COUNTERS_DEFAULTS } from "./redis-counters.ts";
export type { RedisCountersOptions } from "./redis-counters.ts";
export { redisCacheCarrier, REDIS_CACHE_CARRIER_OPTION_SHAPE } from "./redis-cache-carrier.ts";
export type { RedisCacheCarrierOptions } from "./redis-cache-carrier.ts";
