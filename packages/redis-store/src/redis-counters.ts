import {
  AuthConfigError,
  AuthError,
  rejectUnknownOptions,
  type CounterBinding,
  type CounterState,
  type CounterStore,
  type Duration,
  type OptionShape,
} from "@latchkey/core";
import { databaseUnavailable, parseDuration } from "@latchkey/core/internal";
import { createClient, ErrorReply } from "redis";

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

type Reply = [number, string];

function newClient(url: string, connectTimeout: number, commandTimeout: number) {
  return createClient({
    url,
    // Commands fail at once while disconnected instead of queueing (a request must not wait for Redis to return).
    disableOfflineQueue: true,
    // An idle connection is exercised, so a dead peer shows up as a failed PING (and a reconnect), not on the
    // next request. Our own timer in `run` bounds every command whatever the socket does.
    pingInterval: Math.max(1000, commandTimeout),
    socket: { connectTimeout, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) },
  });
}
type Client = ReturnType<typeof newClient>;

// Replies of a server that is there but cannot serve right now (loading its data set, a script running too long,
// a failover in progress): the same 503 as an unreachable one. Any other reply (WRONGTYPE, NOSCRIPT, OOM, NOPERM,
// a script error) is a fault to report as what it is.
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY)\b/;
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
// node-redis's connection errors (ClientClosedError, ClientOfflineError, SocketClosedUnexpectedlyError,
// ConnectionTimeoutError, SocketTimeoutError, DisconnectsClientError, ReconnectStrategyError, TimeoutError).
const CONNECTION_ERRORS =
  /^(ClientClosed|ClientOffline|SocketClosedUnexpectedly|ConnectionTimeout|SocketTimeout|DisconnectsClient|ReconnectStrategy|Timeout)Error$/;

/** Whether `error` means "Redis cannot be reached or cannot serve now" (503), as opposed to a fault (500). */
function isRedisUnavailable(error: unknown): boolean {
  if (error instanceof ErrorReply) return UNAVAILABLE_REPLIES.test(error.message);
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
  return CONNECTION_ERRORS.test(error.constructor.name) || CONNECTION_ERRORS.test(error.name);
}

/** Logs at most one line a second (an outage reports every reconnection attempt), the first line of each message. */
function throttledLog(source: string): (message: string) => void {
  let lastLog = 0;
  return (message) => {
    const now = Date.now();
    if (now - lastLog < 1000) return;
    lastLog = now;
    console.error(`[latchkey] ${source}: ${message.split("\n")[0]}`);
  };
}

const TIMED_OUT = Symbol("timed out");

/** What `pending` settles with, or `TIMED_OUT` when `ms` pass first. */
async function withDeadline<T>(pending: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([pending, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error a failed command throws: 503 when Redis cannot serve now, otherwise a fault naming the reply. */
function commandError(error: unknown): Error {
  if (error instanceof AuthError) return error;
  if (isRedisUnavailable(error)) return databaseUnavailable(error);
  return new Error(`Redis counters: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`, {
    cause: error,
  });
}

/** Closes `last` gracefully, or destroys it when the close has not finished within `ms`. */
async function closeClient(last: Client, ms: number): Promise<void> {
  if (!last.isReady) {
    if (last.isOpen) last.destroy();
    return;
  }
  // A graceful close waits for commands in flight; a frozen Redis would hold it forever.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gone = await Promise.race([
    last.close().then(
      () => true,
      () => false,
    ),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  if (!gone && last.isOpen) last.destroy();
}

/**
 * The counters' connection: opened at once and kept up by the client (reconnectStrategy). Until the first
 * connection is made, callers wait for it together, at most connectTimeout; afterwards commands run at once and
 * fail at once while Redis is away. `run` races every command against commandTimeout and replaces a connection
 * that did not answer in time.
 */
function redisConnection(url: string, connectTimeout: number, commandTimeout: number) {
  const log = throttledLog("Redis counters");
  const open = (): Client => {
    const client = newClient(url, connectTimeout, commandTimeout);
    // The client reports connection failures as `error` events (unlistened, Node would end the process).
    client.on("error", (error: Error) => log(error.message));
    return client;
  };
  let closed = false;
  let client = open();
  const firstWait = Promise.race([
    client.connect().then(
      () => undefined,
      () => undefined,
    ),
    new Promise((resolve) => setTimeout(resolve, connectTimeout).unref()),
  ]);

  /** Drops a connection that did not answer in time and opens a new one (once, however many commands waited). */
  const reopen = (stale: Client) => {
    if (closed || client !== stale) return;
    client = open();
    client.connect().catch(() => undefined);
    try {
      stale.destroy();
    } catch {
      // Already closed: nothing to release.
    }
  };

  const ready = async (): Promise<Client> => {
    if (closed) throw databaseUnavailable(new Error("redisCounters: closed"));
    if (client.isReady) return client;
    await firstWait;
    if (!client.isReady) throw databaseUnavailable(new Error("Redis is not reachable"));
    return client;
  };

  return {
    async run<T>(command: (c: Client) => Promise<T>): Promise<T> {
      const c = await ready();
      const pending = command(c);
      let result: T | typeof TIMED_OUT;
      try {
        result = await withDeadline(pending, commandTimeout);
      } catch (error) {
        throw commandError(error);
      }
      if (result !== TIMED_OUT) return result;
      // The answer may still come (or the drop below rejects it): nobody waits for it any more.
      pending.catch(() => undefined);
      log(`no answer within ${commandTimeout} ms; reconnecting`);
      reopen(c);
      throw databaseUnavailable(new Error(`Redis did not answer within ${commandTimeout} ms`));
    },
    async close() {
      if (closed) return;
      closed = true;
      await closeClient(client, commandTimeout);
    },
  };
}

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
