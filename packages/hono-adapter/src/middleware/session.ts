import type { Context, MiddlewareHandler } from "hono";
import {
  AuthError,
  TWO_FACTOR_PLUGIN_ID,
  type AuthCore,
  type RequestMeta,
  type ValidatedSession,
} from "@latchkey/core";
import { sessionAnswerJson } from "@latchkey/core/internal";
import {
  AMBIGUOUS,
  DEVICE_HEADER,
  TRUSTED_DEVICE_HEADER,
  readCookie,
  readSoleCookie,
  serializeCookie,
  setCookie,
} from "../http/cookies.ts";
import { errorResponse } from "../http/errors.ts";
import { keepRefreshedCookie, rememberRefreshedCookie } from "../http/host-response.ts";
import type { GetClientIp } from "../http/client-ip.ts";
import type { AuthVariables, OptionalAuthVariables } from "../env.ts";

/**
 * Where the session token came from: Bearer wins over the cookie when both are sent. Two session cookies are no
 * token (see `ambiguousSessionCookie`).
 */
export function sessionToken(c: Context, cookieName: string): { token: string; from: "bearer" | "cookie" } | null {
  const auth = c.req.header("authorization");
  if (auth && /^bearer /i.test(auth)) return { token: auth.slice(7).trim(), from: "bearer" };
  const cookie = readSoleCookie(c.req.header("cookie"), cookieName);
  return typeof cookie === "string" && cookie !== "" ? { token: cookie, from: "cookie" } : null;
}

/**
 * Whether the request, without a Bearer token, carries the session cookie more than once. Which one is this site's
 * cannot be told: with `cookies.domain` every subdomain can set a cookie of that name for the parent domain (a
 * longer `Path` makes browsers send it first), so neither is a session (no fixation onto a planted one).
 */
export function ambiguousSessionCookie(c: Context, cookieName: string): boolean {
  const auth = c.req.header("authorization");
  if (auth && /^bearer /i.test(auth)) return false;
  return readSoleCookie(c.req.header("cookie"), cookieName) === AMBIGUOUS;
}

/**
 * The `Set-Cookie` values that expire every session cookie of this name the request can have carried that this
 * answer can reach: at `/` and at each path above the request's (a cookie is sent only under its `Path`), for the
 * configured domain and host-only. A `__Host-` cookie exists only host-only at `/`.
 */
export function clearingCookies(c: Context, core: AuthCore): string[] {
  const cleared = core.ctx.sessions.clearCookie();
  if (cleared.name.startsWith("__Host-")) return [serializeCookie(cleared)];
  const segments = new URL(c.req.url).pathname.split("/").filter((segment) => segment !== "");
  const paths = ["/", ...segments.map((_, i) => `/${segments.slice(0, i + 1).join("/")}`)];
  const domains = cleared.domain === null ? [null] : [cleared.domain, null];
  return domains.flatMap((domain) => paths.map((path) => serializeCookie({ ...cleared, domain, path })));
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
  const deviceCookieName = core.config.deviceCookies.name;
  const { sessions } = core.ctx;
  // With `twoFactor()`: the trusted-device cookie that lets a sign-in skip the second step.
  const trustCookieName = core.plugins.get(TWO_FACTOR_PLUGIN_ID)?.service.signIn.trustCookieName ?? null;
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
        // A request carrying a session of the account, or a device token of it (the device cookie or the
        // `latchkey-device` header), is one of its known devices (the email send limits give it the account's own
        // allowance). Looked up whatever `userId` is (null: an address without an account), so the work does not
        // depend on the address.
        knownDevice: async (userId) => {
          const session = await tools.session(c);
          if (userId !== null && session !== null && session.userRecord.id === userId) return true;
          const device = c.req.header(DEVICE_HEADER)?.trim() || readCookie(c.req.header("cookie"), deviceCookieName);
          return device ? core.ctx.devices.knows(device, userId) : false;
        },
        // Read only by a sign-in's second-step gate, and only with `twoFactor()` installed.
        get trustedDevice() {
          if (trustCookieName === null) return null;
          return c.req.header(TRUSTED_DEVICE_HEADER)?.trim() || readCookie(c.req.header("cookie"), trustCookieName);
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
      else if (found === null && ambiguousSessionCookie(c, cookieName))
        for (const value of clearingCookies(c, core)) {
          c.header("set-cookie", value, { append: true });
          rememberRefreshedCookie(c, value);
        }
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
      // Two session cookies: `session` answers null and clears them.
      if (!found) return ambiguousSessionCookie(c, cookieName) ? undefined : "null";
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
