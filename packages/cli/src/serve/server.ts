import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { describeError } from "@latchkey/core";
import type { Auth, CreateAuthOptions } from "@latchkey/hono-adapter";
import { requestLogLine } from "./request-log.ts";

/** How `latchkey serve` runs: where it listens and how long it waits at start and at shutdown. */
export interface ServerSettings {
  port: number;
  host: string;
  /** How long to wait for the database to answer at start before giving up (the start then fails). */
  databaseWaitMs: number;
  /** How long requests in flight may take to finish after SIGTERM before their connections are cut. */
  drainTimeoutMs: number;
  /** Where the request log and the status lines go (stdout by default). */
  log: (line: string) => void;
  /**
   * Behind this many proxies that overwrite `X-Forwarded-For`, the client address for rate limits is read there
   * (`clientIp.fromForwardedFor(hops)`); 0 (the default) keeps the socket's. A config that sets `getClientIp`
   * itself cannot take it too.
   */
  proxyHops?: number;
}

/** A listening server. */
export interface RunningServer {
  /** `http://host:port`, with the port actually bound (`--port 0` picks a free one). */
  url: string;
  port: number;
  basePath: string;
  auth: Auth;
  /** Stops taking connections, lets the requests in flight finish (up to the drain timeout), closes the store. */
  stop(): Promise<void>;
}

/** `--proxy-hops` given to a config that chose its own `getClientIp`. */
export class ProxyHopsError extends Error {
  override name = "ProxyHopsError";
}

/** The database did not answer within the bounded wait at start. */
export class DatabaseWaitError extends Error {
  override name = "DatabaseWaitError";
}

const ADAPTER = "@latchkey/hono-adapter";

type Adapter = typeof import("@latchkey/hono-adapter");

async function loadAdapter(): Promise<Adapter> {
  try {
    return await import("@latchkey/hono-adapter");
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "ERR_MODULE_NOT_FOUND" && String(error).includes(ADAPTER))
      throw new Error(`latchkey serve runs ${ADAPTER}, which is not installed: npm install ${ADAPTER} hono`, {
        cause: error,
      });
    throw error;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the store (and counters with a connection of their own) answered, or why not, within `ms`. */
async function checkDatabase(auth: Auth, ms: number): Promise<{ problem: string; timedOut: boolean } | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ problem: string; timedOut: boolean }>((resolve) => {
    timer = setTimeout(() => resolve({ problem: `no answer within ${ms} ms`, timedOut: true }), ms);
  });
  // The store itself, not `/health`: the health route answers every failure with the same 503, and the operator
  // starting the server needs the driver's own reason (refused, unknown host, wrong password, missing database).
  const { store } = auth.core.ctx;
  const check = (async () => {
    await store.ping();
    await store.counters.ping?.();
  })().then(
    () => null,
    // Names and first lines along the cause chain: Latchkey's DATABASE_UNAVAILABLE, then the driver's reason.
    (error: unknown) => ({ problem: describeError(error), timedOut: false }),
  );
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits until the database answers one ping, for at most `waitMs`: a container started before its database gets
 * the time to see it come up, and a wrong URL still ends in a clear failure instead of a server that answers 503
 * forever. The failure names the last real cause the driver gave (a refused connection, a wrong password), not the
 * short timeout of the last attempt.
 */
async function waitForDatabase(auth: Auth, waitMs: number, log: (line: string) => void) {
  const deadline = Date.now() + waitMs;
  let told = false;
  let cause: string | null = null;
  for (;;) {
    const remaining = deadline - Date.now();
    const result = await checkDatabase(auth, Math.max(remaining, 1));
    if (result === null) return;
    if (!result.timedOut || cause === null) cause = result.problem;
    if (Date.now() >= deadline)
      throw new DatabaseWaitError(`the database did not answer within ${waitMs / 1000} s (last: ${cause})`);
    if (!told) {
      log(`waiting up to ${waitMs / 1000} s for the database (${result.problem})`);
      told = true;
    }
    await sleep(Math.min(500, Math.max(deadline - Date.now(), 0)));
  }
}

/**
 * `createAuth(options)` through the installed adapter. When it throws (invalid options), whatever the config
 * already opened (its store, a Redis client) is closed first, or it would keep the process alive.
 */
export async function buildAuth(options: CreateAuthOptions, proxyHops = 0): Promise<Auth> {
  try {
    const { createAuth, clientIp } = await loadAdapter();
    if (proxyHops === 0) return createAuth(options);
    if (options.getClientIp !== undefined)
      throw new ProxyHopsError(
        "the config sets getClientIp and --proxy-hops (LATCHKEY_PROXY_HOPS) is given too: keep one of them",
      );
    return createAuth({ ...options, getClientIp: clientIp.fromForwardedFor(proxyHops) });
  } catch (error) {
    await releaseConnections(options);
    throw error;
  }
}

/** Closes whatever the options opened, best effort (the options may be invalid in any way). */
async function releaseConnections(options: CreateAuthOptions): Promise<void> {
  const closers = [options.database, options.counters].map((part) => {
    const close = (part as { close?: unknown } | null | undefined)?.close;
    return typeof close === "function" ? Promise.resolve().then(() => close.call(part)) : Promise.resolve();
  });
  await Promise.allSettled(closers);
}

/**
 * Builds the auth from `options` (invalid options throw `AuthConfigError` here), waits for the database, and
 * serves the auth handler at its `basePath` plus `/health` on a Node HTTP server.
 */
export async function startServer(options: CreateAuthOptions, settings: ServerSettings): Promise<RunningServer> {
  const auth = await buildAuth(options, settings.proxyHops ?? 0);
  const { basePath, environment } = auth.core.config;
  try {
    await waitForDatabase(auth, settings.databaseWaitMs, settings.log);
  } catch (error) {
    await auth.close().catch(() => undefined);
    throw error;
  }

  let stopping = false;
  const active = new Set<ServerResponse>();
  // `env` carries Node's request and response: `clientIp.fromSocket` (the default) reads the peer address there.
  const fetch = (request: Request, env: unknown): Promise<Response> | Response => {
    const { pathname } = new URL(request.url);
    if (pathname !== "/health") return auth.handler(request, env);
    if (basePath === "") return auth.handler(request, env);
    return auth.handler(new Request(new URL(`${basePath}/health`, request.url), { method: request.method }), env);
  };
  const listener = getRequestListener(fetch);
  const production = environment === "production";
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    active.add(res);
    if (stopping) res.setHeader("connection", "close");
    res.once("close", () => {
      active.delete(res);
      settings.log(requestLogLine(req, res, performance.now() - started, production));
      // A keep-alive connection whose last request just finished is idle now: let the drain close it.
      if (stopping) server.closeIdleConnections();
    });
    void listener(req, res);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, settings.host, () => {
      server.off("error", reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    await auth.close().catch(() => undefined);
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(":") ? `[${settings.host}]` : settings.host;

  let stopped: Promise<void> | null = null;
  const stop = () => {
    stopped ??= (async () => {
      stopping = true;
      // Answers still to be written tell their clients not to reuse the connection.
      for (const res of active) if (!res.headersSent) res.setHeader("connection", "close");
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), settings.drainTimeoutMs);
      await closed;
      clearTimeout(cut);
      await auth.close();
    })();
    return stopped;
  };
  return { url: `http://${host}:${port}`, port, basePath, auth, stop };
}
