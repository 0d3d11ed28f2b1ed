import { AuthError } from "@latchkey/core";
import { databaseUnavailable } from "@latchkey/core/internal";
import { createClient, ErrorReply } from "redis";

// The counters' connection to Redis: opening it, bounding every command by a deadline, telling "Redis cannot serve
// now" (503) from a fault (500), and closing it.

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
export function redisConnection(url: string, connectTimeout: number, commandTimeout: number) {
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
