/**
 * @latchkey/redis-store: Latchkey's hot counters (rate limits, lockout) in Redis or Valkey.
 *
 * @example
 * import { redisCounters } from "@latchkey/redis-store";
 */
export { redisCounters } from "./redis-counters.ts";
export type { RedisCountersOptions } from "./redis-counters.ts";
