/**
 * @latchkey/redis-store: Latchkey's hot counters (rate limits, lockout) in Redis or Valkey.
 *
 * @example
 * import { redisCounters } from "@latchkey/redis-store";
 */
export { redisCounters, REDIS_COUNTERS_OPTION_SHAPE, REDIS_COUNTERS_DEFAULTS } from "./redis-counters.ts";
export type { RedisCountersOptions } from "./redis-counters.ts";
