import type { Context, MiddlewareHandler } from "hono";
import { AuthError, type AuthCore, type RequestMeta, type ValidatedSession } from "@latchkey/core";
import { sessionAnswerJson } from "@latchkey/core/internal";
import { readCookie, setCookie } from "../http/cookies.ts";
import { errorResponse } from "../http/errors.ts";
import { keepRefreshedCookie, rememberRefreshedCookie } from "../http/host-response.ts";
import type { GetClientIp } from "../http/client-ip.ts";
import type { AuthVariables, OptionalAuthVariables } from "../env.ts";

/** Where the session token came from: Bearer wins over the cookie when both are sent. */
export function sessionToken(c: Context, cookieName: string): { token: string; from: "bearer" | "cookie" } | null {
  const auth = c.req.header("authorization");
  if (auth && /^bearer /i.test(auth)) return { token: auth.slice(7).trim(), from: "bearer" };
  const cookie = readCookie(c.req.header("cookie"), cookieName);
  return cookie ? { token: cookie, from: "cookie" } : null;
}

/** Request-scoped helpers shared by routes and dependencies. */
export interface RequestTools {
  core: AuthCore;
  meta(c: Context): RequestMeta;
  /** The live session of the request (looked up once per request), refreshing the cookie when it slid. */
  session(c: Context): Promise<ValidatedSession | null>;
  /** The session or a thrown INVALID_CREDENTIALS. */
  requireSession(c: Context): Promise<ValidatedSession>;
  /**
   * get-session's answer (`{ user, session }` as JSON, or `null`) when it is known without a store call: no token,
   * one that cannot be a session token, the session already looked up in this request, or a live one the lookup
   * cache holds that is not due to slide. Undefined otherwise: then `session` looks it up.
   */
  knownAnswer(c: Context): string | undefined;
  /**
   * Features decorate get-session answers here (the JWT plugin adds `set-auth-jwt`): `headers` are those of the
   * answer as it leaves the route, already merged with whatever a host middleware set on `c.res` before it.
   */
  afterGetSession: Array<(c: Context, session: ValidatedSession, headers: Headers) => Promise<void>>;
}

export function createRequestTools(core: AuthCore, getClientIp: GetClientIp): RequestTools {
  const cookieName = core.config.cookies.name;
  const { sessions } = core.ctx;
  const tools: RequestTools = {
    core,
    afterGetSession: [],
    meta(c) {
      return {
        ip: getClientIp(c.req.raw, c),
        userAgent: c.req.header("user-agent") ?? null,
        // Resolved only when used: Hono's getter throws (and builds a stack trace) on every request of a
        // runtime without an ExecutionContext, which showed up as the top cost of the API-key hot path.
        waitUntil: (task) => {
          let execution: { waitUntil(task: Promise<unknown>): void };
          // The error is only a signal: no stack trace is captured for it (V8 reads the limit at construction).
          const limit = Error.stackTraceLimit;
          Error.stackTraceLimit = 0;
          try {
            execution = c.executionCtx;
          } catch {
            return; // Node, Bun, Deno: the task runs to completion on its own.
          } finally {
            Error.stackTraceLimit = limit;
          }
          execution.waitUntil(task);
        },
      };
    },
    async session(c) {
      const cached = c.get("latchkeySession") as ValidatedSession | null | undefined;
      if (cached !== undefined) return cached;
      const found = sessionToken(c, cookieName);
      let validated: ValidatedSession | null = null;
      if (found) {
        // From the lookup cache without a store call when it can (the caller's own copies), else from the store.
        const known = sessions.validateCached(found.token);
        validated = known === undefined ? await sessions.validate(found.token) : known && sessions.ownCopy(known);
      }
      if (validated?.refreshedCookie && found?.from === "cookie")
        rememberRefreshedCookie(c, setCookie(c, validated.refreshedCookie));
      c.set("latchkeySession", validated);
      return validated;
    },
    async requireSession(c) {
      const s = await tools.session(c);
      if (!s) throw new AuthError("INVALID_CREDENTIALS", "Sign in first");
      return s;
    },
    knownAnswer(c) {
      const looked = c.get("latchkeySession") as ValidatedSession | null | undefined;
      if (looked !== undefined)
        return looked === null
          ? "null"
          : (sessionAnswerJson(looked) ?? JSON.stringify({ user: looked.user, session: looked.session }));
      const found = sessionToken(c, cookieName);
      if (!found) return "null";
      // The shared views are not kept on the context: a later `session(c)` in this request makes its own copies.
      const known = sessions.validateCached(found.token);
      return known === undefined ? undefined : known === null ? "null" : known.json;
    },
  };
  return tools;
}

/** Host-route dependencies: they answer 401 themselves, so they work without `auth.middleware`. */
export function createDependencies(tools: RequestTools) {
  const required: MiddlewareHandler<{ Variables: AuthVariables }> = async (c, next) => {
    const s = await tools.session(c);
    if (!s) return errorResponse(new AuthError("INVALID_CREDENTIALS", "Sign in first"));
    c.set("user", s.user);
    c.set("session", s.session);
    await next();
    keepRefreshedCookie(c);
  };
  const optional: MiddlewareHandler<{ Variables: OptionalAuthVariables }> = async (c, next) => {
    const s = await tools.session(c);
    c.set("user", s?.user ?? null);
    c.set("session", s?.session ?? null);
    await next();
    keepRefreshedCookie(c);
  };
  return { requireUser: required, requireSession: required, optionalUser: optional, optionalSession: optional };
}
