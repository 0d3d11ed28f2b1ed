import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AuthError, type ValidatedSession } from "@latchkey/core";
import type { AuthEnv } from "../env.ts";
import type { RequestTools } from "../middleware/session.ts";
import { errorResponse } from "../http/errors.ts";
import { DEVICE_HEADER, readCookie } from "../http/cookies.ts";
import type { RouteInput, RouteSpec } from "./route-spec.ts";

/** The device token a request carries: the `latchkey-device` header, a body `deviceToken`, or the device cookie. */
function deviceTokenOf(c: Context<AuthEnv>, body: unknown, cookieName: string): string | null {
  const header = c.req.header(DEVICE_HEADER)?.trim();
  if (header) return header;
  const field = body && typeof body === "object" ? (body as { deviceToken?: unknown }).deviceToken : undefined;
  if (typeof field === "string" && field !== "") return field;
  return readCookie(c.req.header("cookie"), cookieName);
}

/**
 * What runs after validation: the rate limit, the password-hash budget and the session check where the route has
 * them, then the handler. A route with none of them calls its handler directly: a handler that can answer at once
 * (a cached get-session) then answers without a promise.
 */
export function routeHandler<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, A extends boolean>(
  tools: RequestTools,
  spec: RouteSpec<B, Q, A>,
  rules: { limited: boolean; global: boolean; fresh: boolean },
  handler: (c: Context<AuthEnv>, input: RouteInput<B, Q, A>) => Promise<Response> | Response,
): (c: Context<AuthEnv>) => Promise<Response> | Response {
  const { limited, global, fresh } = rules;
  const inputOf = (c: Context<AuthEnv>): RouteInput<B, Q, A> => {
    const req = c.req as unknown as { valid(target: "json" | "query"): unknown };
    return {
      body: spec.body ? req.valid("json") : undefined,
      query: spec.query ? req.valid("query") : undefined,
      session: undefined,
      device: null,
    } as RouteInput<B, Q, A>;
  };
  /** The 400 of an input holding NUL, or null. */
  const nulRefusal = (input: RouteInput<B, Q, A>): Response | null => {
    const nul = nulPath(input.body, "") ?? nulPath(input.query, "");
    if (nul === null) return null;
    return errorResponse(
      new AuthError("INVALID_REQUEST", "The request is invalid", {
        details: [{ path: nul, message: "Text may not contain NUL (U+0000)" }],
      }),
    );
  };
  const { ctx } = tools.core;
  const deviceCookie = tools.core.config.deviceCookies.name;
  const deviceAware = spec.deviceAware === true && tools.core.config.deviceCookies.enabled;
  const guarded = async (c: Context<AuthEnv>) => {
    const input = inputOf(c);
    const anonymousLimits = async () => {
      // Counted after validation: a malformed request (400/413/415) changes nothing, so it spends no budget.
      if (limited) await ctx.rateLimiter.check(tools.meta(c).ip, spec.path, { global });
      // After the per-IP rules, so an address already over its own limit spends none of the shared budget.
      if (spec.hashesPassword) await ctx.hashBudget.spend();
    };
    const token = deviceAware ? deviceTokenOf(c, input.body, deviceCookie) : null;
    if (token === null) await anonymousLimits();
    else (input as { device: RouteInput<B, Q, A>["device"] }).device = { token, anonymousLimits };
    const refused = nulRefusal(input);
    if (refused) return refused;
    // After the rate limit: a client without a session spends the same budget as one with
    // (see docs/decisions/0005-rate-limits.md).
    if (spec.authenticated) {
      const session = await tools.requireSession(c);
      if ((spec.fresh || spec.ownSessionOnly) && session.sessionRecord.impersonatedBy !== null)
        throw new AuthError(
          "IMPERSONATION_NOT_ALLOWED",
          "An impersonation session cannot change the password, second factor, passkeys or account of the user",
        );
      if (fresh) tools.core.ctx.sessions.assertFresh(session.sessionRecord);
      (input as { session?: ValidatedSession }).session = session;
    }
    return handler(c, input);
  };
  const direct = (c: Context<AuthEnv>) => {
    const input = inputOf(c);
    return nulRefusal(input) ?? handler(c, input);
  };
  return limited || spec.hashesPassword || spec.authenticated || spec.deviceAware ? guarded : direct;
}

/**
 * The path of the first string in `value` that holds a NUL character, or null. PostgreSQL refuses NUL in text and
 * JSON, so such input is rejected here, for every store alike, as 400 instead of failing in the database.
 */
function nulPath(value: unknown, path: string): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (value === null || typeof value !== "object") return null;
  for (const [key, inner] of Object.entries(value)) {
    const at = path === "" ? key : `${path}.${key}`;
    if (key.includes("\u0000")) return at;
    const found = nulPath(inner, at);
    if (found !== null) return found;
  }
  return null;
}
