import {
  databaseUnavailable,
  parseDuration,
  type CounterState,
  type CounterStore,
  type Duration,
} from "@latchkey/core";
import { createClient } from "redis";

/** Options of `redisCounters`. */
export interface RedisCountersOptions {
  /** `redis://[[user]:password@]host[:port][/db]` or `rediss://` (TLS). Valkey speaks the same protocol. */
  url: string;
  /** Prefix of every key this store writes. Default `"latchkey:"`. */
  keyPrefix?: string;
  /** Longest wait for a connection. Default 2 s. */
  connectTimeout?: Duration;
  /** Longest wait for one command. Default 2 s. */
  commandTimeout?: Duration;
}

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
// RENAME fails on a missing source; "move or clear the target" is one script.
const RENAME = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('RENAME', KEYS[1], KEYS[2])
else
  redis.call('DEL', KEYS[2])
end
return 1
`;

type Reply = [number, string];

/**
 * Rate-limit, lockout and per-API-key window counters in Redis or Valkey (official `redis` client): pass it as
 * `createAuth({ database, counters: redisCounters({ url }) })`. Every hit is one Lua script, one round trip,
 * atomic across any number of instances. Redis that cannot be reached answers 503 `DATABASE_UNAVAILABLE`,
 * like the database: limits are never silently skipped. `close()` (or `auth.close()`) disconnects.
 *
 * @example
 * import { redisCounters } from "@latchkey/redis-store";
 * const auth = createAuth({ secret, baseUrl, database, counters: redisCounters({ url: process.env.REDIS_URL! }) });
 */
export function redisCounters(options: RedisCountersOptions): CounterStore & { close(): Promise<void> } {
  const prefix = options.keyPrefix ?? "latchkey:";
  const connectTimeout =
    options.connectTimeout === undefined ? 2000 : parseDuration(options.connectTimeout, "redisCounters.connectTimeout");
  const commandTimeout =
    options.commandTimeout === undefined ? 2000 : parseDuration(options.commandTimeout, "redisCounters.commandTimeout");
  const client = createClient({
    url: options.url,
    // Commands fail at once while disconnected instead of queueing (a request must not wait for Redis to return).
    disableOfflineQueue: true,
    commandOptions: { timeout: commandTimeout },
    socket: { connectTimeout, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) },
  });
  let lastLog = 0;
  // The client reports connection failures as `error` events (unlistened, Node would end the process).
  client.on("error", (error: Error) => {
    const now = Date.now();
    if (now - lastLog < 1000) return;
    lastLog = now;
    console.error(`[latchkey] Redis counters: ${error.message.split("\n")[0]}`);
  });
  // Connect at once; the client then keeps the connection up by itself (reconnectStrategy). Until the first
  // connection is made, callers wait for it together, at most connectTimeout; afterwards commands run at once
  // and fail at once while Redis is away.
  let closed = false;
  const connecting = client.connect().then(
    () => undefined,
    () => undefined,
  );
  const firstWait = Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, connectTimeout).unref())]);
  const ready = async () => {
    if (closed) throw databaseUnavailable(new Error("redisCounters: closed"));
    if (client.isReady) return;
    await firstWait;
    if (!client.isReady) throw databaseUnavailable(new Error("Redis is not reachable"));
  };
  const run = async <T>(fn: () => Promise<T>): Promise<T> => {
    await ready();
    try {
      return await fn();
    } catch (error) {
      throw databaseUnavailable(error);
    }
  };
  const key = (k: string) => prefix + k;

  return {
    async hit(k, windowMs, now): Promise<CounterState> {
      const [count, resetAt] = (await run(() =>
        client.eval(HIT, { keys: [key(k)], arguments: [String(now), String(windowMs)] }),
      )) as unknown as Reply;
      return { count: Number(count), resetAt: Number(resetAt) };
    },
    async peek(k, now) {
      const [count, resetAt] = await run(() => client.hmGet(key(k), ["c", "r"]));
      if (count == null || resetAt == null || Number(resetAt) <= now) return null;
      return { count: Number(count), resetAt: Number(resetAt) };
    },
    async delete(k) {
      await run(() => client.del(key(k)));
    },
    async rename(from, to) {
      if (from === to) return;
      await run(() => client.eval(RENAME, { keys: [key(from), key(to)] }));
    },
    // Every key carries PEXPIRE of its window: Redis frees ended counters by itself, nothing is left to sweep.
    async deleteExpired() {
      return 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (client.isReady) await client.close();
      else if (client.isOpen) client.destroy();
    },
  };
}
