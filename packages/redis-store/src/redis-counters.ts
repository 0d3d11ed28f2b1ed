import {
  AuthConfigError,
  rejectUnknownOptions,
  type CounterBinding,
  type CounterState,
  type CounterStore,
  type Duration,
  type OptionShape,
} from "@latchkey/core";
import { parseDuration } from "@latchkey/core/internal";
import { redisConnection } from "./connection.ts";

type Reply = [number, string];

/** Options of `redisCounters`. */
export interface RedisCountersOptions {
  /** `redis://[[user]:password@]host[:port][/db]` or `rediss://` (TLS). Valkey speaks the same protocol. */
  url: string;
  /**
   * Prefix of every key this store writes. Default `"latchkey:<app>:"`, where `<app>` is 12 hex characters derived
   * from the auth secret and the origin of `baseUrl`, so two apps on one Redis never share a counter. Set it to
   * keep counters across a change of secret, or to tell apps apart by name.
   */
  keyPrefix?: string;
  /** Longest wait for a connection. Default 2 s. */
  connectTimeout?: Duration;
  /**
   * Longest wait for one command, from sending it to its answer. When it passes, the request answers 503
   * `DATABASE_UNAVAILABLE` and the connection is dropped and opened again. Default 2 s.
   */
  commandTimeout?: Duration;
}

/** The options `redisCounters` accepts; any other key is an `AuthConfigError` naming the nearest one. */
export const REDIS_COUNTERS_OPTION_SHAPE: OptionShape = {
  url: true,
  keyPrefix: true,
  connectTimeout: true,
  commandTimeout: true,
};

const DEFAULT_TIMEOUT = "2s";
const defaultPrefix = (app: string) => `latchkey:${app}:`;

/** The defaults as the docs write them (the prefix's `<app>`: 12 hex characters from the secret and `baseUrl`). */
export const REDIS_COUNTERS_DEFAULTS: Readonly<Record<string, string>> = {
  keyPrefix: JSON.stringify(defaultPrefix("<app>")),
  connectTimeout: JSON.stringify(DEFAULT_TIMEOUT),
  commandTimeout: JSON.stringify(DEFAULT_TIMEOUT),
};

// A counter is a hash {c: count, r: resetAt (ms epoch)} that expires with its window. The window logic runs in
// Redis, on the `now` the caller passes (the same clock as every other store), so each hit is one atomic round trip.
const HIT = `
local reset = tonumber(redis.call('HGET', KEYS[1], 'r'))
local now = tonumber(ARGV[1])
if reset == nil or reset <= now then
  reset = now + tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'c', 1, 'r', reset)
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, tostring(reset)}
end
return {redis.call('HINCRBY', KEYS[1], 'c', 1), tostring(reset)}
`;
// `hitGated`: the same window logic on the gate (KEYS[1]), then on KEYS[2] only when the gate's new count is at most
// ARGV[4]; one script, so racing calls stay exact. Answers {gate count, gate reset} or those and {count, reset}.
const HIT_GATED = `
local now = tonumber(ARGV[1])
local function hit(key, window)
  local reset = tonumber(redis.call('HGET', key, 'r'))
  if reset == nil or reset <= now then
    reset = now + window
    redis.call('HSET', key, 'c', 1, 'r', reset)
    redis.call('PEXPIRE', key, window)
    return 1, reset
  end
  return redis.call('HINCRBY', key, 'c', 1), reset
end
local count, reset = hit(KEYS[1], tonumber(ARGV[2]))
if count > tonumber(ARGV[4]) then
  return {count, tostring(reset)}
end
local nextCount, nextReset = hit(KEYS[2], tonumber(ARGV[3]))
return {count, tostring(reset), nextCount, tostring(nextReset)}
`;
// RENAME fails on a missing source; "move or clear the target" is one script.
const RENAME = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('RENAME', KEYS[1], KEYS[2])
else
  redis.call('DEL', KEYS[2])
end
return 1
`;

/**
 * Rate-limit and lockout counters in Redis or Valkey (official `redis` client): pass it as
 * `createAuth({ database, counters: redisCounters({ url }) })`. Every hit is one Lua script, one round trip,
 * atomic across any number of instances. Every command is raced against `commandTimeout`; a Redis that cannot be
 * reached, or does not answer in time, answers 503 `DATABASE_UNAVAILABLE` like the database (limits are never
 * silently skipped), and a connection that timed out is replaced. Identifiers in keys are HMAC'd with a key
 * derived from the auth secret. `close()` (or `auth.close()`) disconnects.
 *
 * @example
 * import { redisCounters } from "@latchkey/redis-store";
 * const auth = createAuth({ secret, baseUrl, database, counters: redisCounters({ url: process.env.REDIS_URL! }) });
 */
export function redisCounters(
  options: RedisCountersOptions,
): CounterStore & { close(): Promise<void>; ping(): Promise<void>; bind(binding: CounterBinding): void } {
  rejectUnknownOptions(options, REDIS_COUNTERS_OPTION_SHAPE, "redisCounters");
  const connectTimeout = parseDuration(options.connectTimeout ?? DEFAULT_TIMEOUT, "redisCounters.connectTimeout");
  const commandTimeout = parseDuration(options.commandTimeout ?? DEFAULT_TIMEOUT, "redisCounters.commandTimeout");
  if (options.keyPrefix !== undefined && (typeof options.keyPrefix !== "string" || options.keyPrefix === ""))
    throw new AuthConfigError("redisCounters.keyPrefix", "must be a non-empty string");

  const { run, close } = redisConnection(options.url, connectTimeout, commandTimeout);

  // Keys are `<prefix><kind>:<hmac of the rest>`: the kind (`rl`, `fail`, `lock`) stays readable for operators,
  // the identifier (email, username, client address, path) does not.
  let binding: CounterBinding | null = null;
  let prefix = options.keyPrefix ?? null;
  const key = (k: string) => {
    if (!binding || prefix === null)
      throw new Error("redisCounters: pass it to createAuth({ counters }) before use (it keys counters by the secret)");
    const colon = k.indexOf(":");
    return colon < 0 ? prefix + binding.keyOf(k) : `${prefix}${k.slice(0, colon)}:${binding.keyOf(k.slice(colon + 1))}`;
  };

  return {
    bind(next) {
      if (binding && binding.namespace !== next.namespace)
        throw new AuthConfigError(
          "counters",
          "this redisCounters() is already used by another app (another secret or baseUrl); create one per createAuth",
        );
      binding = next;
      prefix = options.keyPrefix ?? defaultPrefix(next.namespace);
    },
    async hit(k, windowMs, now): Promise<CounterState> {
      const redisKey = key(k);
      const [count, resetAt] = (await run((c) =>
        c.eval(HIT, { keys: [redisKey], arguments: [String(now), String(windowMs)] }),
      )) as unknown as Reply;
      return { count: Number(count), resetAt: Number(resetAt) };
    },
    async hitGated(gate, next, now) {
      const keys = [key(gate.key), key(next.key)];
      const reply = (await run((c) =>
        c.eval(HIT_GATED, {
          keys,
          arguments: [String(now), String(gate.windowMs), String(next.windowMs), String(gate.max)],
        }),
      )) as unknown as [number, string] | [number, string, number, string];
      const [count, resetAt, nextCount, nextResetAt] = reply;
      return {
        gate: { count: Number(count), resetAt: Number(resetAt) },
        next: nextCount === undefined ? null : { count: Number(nextCount), resetAt: Number(nextResetAt) },
      };
    },
    async peek(k, now) {
      const redisKey = key(k);
      const [count, resetAt] = await run((c) => c.hmGet(redisKey, ["c", "r"]));
      if (count == null || resetAt == null || Number(resetAt) <= now) return null;
      return { count: Number(count), resetAt: Number(resetAt) };
    },
    async peekMany(ks, now) {
      const redisKeys = ks.map(key);
      // One round trip: the commands of a multi() without exec's transaction (a pipeline).
      const replies = (await run((c) => {
        const batch = c.multi();
        for (const redisKey of redisKeys) batch.hmGet(redisKey, ["c", "r"]);
        return batch.execAsPipeline();
      })) as unknown as Array<[string | null, string | null]>;
      return replies.map(([count, resetAt]) =>
        count == null || resetAt == null || Number(resetAt) <= now
          ? null
          : { count: Number(count), resetAt: Number(resetAt) },
      );
    },
    async delete(k) {
      const redisKey = key(k);
      await run((c) => c.del(redisKey));
    },
    async rename(from, to) {
      if (from === to) return;
      const keys = [key(from), key(to)];
      await run((c) => c.eval(RENAME, { keys }));
    },
    async ping() {
      await run((c) => c.ping());
    },
    // Every key carries PEXPIRE of its window: Redis frees ended counters by itself, nothing is left to sweep.
    async deleteExpired() {
      return 0;
    },
    close,
  };
}
