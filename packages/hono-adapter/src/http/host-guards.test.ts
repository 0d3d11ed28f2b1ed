import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { AuthError, type FullStore, type Logger } from "@latchkey/core";
import { databaseUnavailable } from "@latchkey/core/internal";
import { memoryStore } from "@latchkey/memory-store";
import { errorResponse } from "./errors.ts";
import { requestSession } from "./request-session.ts";
import { nodeSession, writeWebResponse } from "../node/node-handler.ts";
import { BASE_URL, bearer, cookieHeaders, createTestAuth, type TestAuth } from "../../test/test-auth.ts";

// One table of requests, three host guards: Hono's `auth.middleware` + `requireUser`, `requestSession` (SvelteKit
// hooks, Astro middleware, Next.js route handlers and server actions: a web Request) and `nodeSession` (Express,
// Fastify: a Node IncomingMessage, through a real HTTP server). Each guard is written the way the docs and the
// examples write it: an AuthError is answered with `errorResponse`, no user is 401.

type Guard = (method: string, headers: Record<string, string>) => Promise<{ status: number; code: string | null }>;

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

async function answer(res: Response): Promise<{ status: number; code: string | null }> {
  const body = (await res.json()) as { code?: string };
  return { status: res.status, code: body.code ?? null };
}

const signedIn = () => Response.json({ ok: true });
const signInFirst = () => errorResponse(new AuthError("INVALID_CREDENTIALS", "Sign in first"));

function honoGuard(t: TestAuth): Guard {
  const app = new Hono();
  // The host's own error handler (Hono's default one prints every error with its stack).
  app.onError((error) => errorResponse(error, t.auth.core.logger));
  app.use("*", t.auth.middleware);
  app.all("/account", t.auth.requireUser, (c) => c.json({ ok: true }));
  return async (method, headers) => answer(await app.request(`${BASE_URL}/account`, { method, headers }));
}

function webGuard(t: TestAuth): Guard {
  const sessionOf = requestSession(t.auth);
  return async (method, headers) => {
    const request = new Request(`${BASE_URL}/account`, { method, headers });
    try {
      const { user } = await sessionOf(request);
      return answer(user ? signedIn() : signInFirst());
    } catch (error) {
      return answer(errorResponse(error));
    }
  };
}

async function nodeGuard(t: TestAuth): Promise<Guard> {
  const sessionOf = nodeSession(t.auth);
  const server = createServer((req, res) => {
    void sessionOf(req).then(
      ({ user }) => writeWebResponse(user ? signedIn() : signInFirst(), res),
      (error: unknown) => writeWebResponse(errorResponse(error), res),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return async (method, headers) =>
    answer(await fetch(`http://127.0.0.1:${port}/account`, { method, headers: { ...headers } }));
}

const guards: Array<[string, (t: TestAuth) => Guard | Promise<Guard>]> = [
  ["Hono auth.middleware + requireUser", honoGuard],
  ["requestSession (SvelteKit, Astro, Next.js)", webGuard],
  ["nodeSession (Express, Fastify)", nodeGuard],
];

describe.each(guards)("host guard: %s", (_name, makeGuard) => {
  afterEach(() => vi.restoreAllMocks());

  it("refuses a state-changing cookie request from an untrusted or missing origin; Bearer and safe methods pass", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const guard = await makeGuard(t);
    const evil = "https://evil.example";
    const cases: Array<[string, Record<string, string>, number, string | null]> = [
      ["POST", cookieHeaders(token), 200, null],
      ["POST", cookieHeaders(token, evil), 403, "INVALID_ORIGIN"],
      ["DELETE", cookieHeaders(token, evil), 403, "INVALID_ORIGIN"],
      ["PUT", cookieHeaders(token, "null"), 403, "INVALID_ORIGIN"],
      ["PATCH", cookieHeaders(token, null), 403, "MISSING_ORIGIN"],
      // Fetch Metadata: a browser that calls it cross-site is believed over a Referer naming a trusted page.
      [
        "POST",
        { ...cookieHeaders(token, null), referer: `${BASE_URL}/page`, "sec-fetch-site": "cross-site" },
        403,
        "INVALID_ORIGIN",
      ],
      ["POST", { ...cookieHeaders(token, null), referer: `${BASE_URL}/page` }, 200, null],
      ["GET", cookieHeaders(token, evil), 200, null],
      ["POST", { ...bearer(token), origin: evil }, 200, null],
      ["POST", { origin: evil }, 401, "INVALID_CREDENTIALS"],
    ];
    for (const [method, headers, status, code] of cases) {
      expect(await guard(method, headers), `${method} ${JSON.stringify(headers)}`).toEqual({ status, code });
    }
  });

  it("a database outage is 503 DATABASE_UNAVAILABLE (not a SyntaxError), and nothing bypasses the logger", async () => {
    const base = memoryStore();
    let down = false;
    // Every session read fails the way a store reports an unreachable database.
    const sessions = new Proxy(base.sessions, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (down) throw databaseUnavailable(new Error("connect ECONNREFUSED 127.0.0.1:5432"));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const store: FullStore = { ...base, sessions };
    const lines: string[] = [];
    const logger: Logger = {
      debug: (_f, m) => void lines.push(m),
      info: (_f, m) => void lines.push(m),
      warn: (_f, m) => void lines.push(m),
      error: (_f, m) => void lines.push(m),
    };
    const t = createTestAuth({ store, logger });
    const { token } = await t.signUp("ada@example.com");
    const guard = await makeGuard(t);
    const consoleError = vi.spyOn(console, "error");
    const consoleWarn = vi.spyOn(console, "warn");
    down = true;
    expect(await guard("GET", cookieHeaders(token))).toEqual({ status: 503, code: "DATABASE_UNAVAILABLE" });
    expect(await guard("POST", bearer(token))).toEqual({ status: 503, code: "DATABASE_UNAVAILABLE" });
    expect(consoleError).not.toHaveBeenCalled();
    expect(consoleWarn).not.toHaveBeenCalled();
    down = false;
    expect(await guard("GET", cookieHeaders(token))).toEqual({ status: 200, code: null });
  });
});
