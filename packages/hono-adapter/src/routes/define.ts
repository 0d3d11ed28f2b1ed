import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AuthEnv } from "../env.ts";
import type { RequestTools } from "../middleware/session.ts";
import { rejectCrossSiteNavigation } from "../middleware/security.ts";
import {
  AuthError,
  type RateLimitRule,
  type ResolvedConfig,
  type ResolvedRule,
  type ValidatedSession,
} from "@latchkey/core";
import { errorResponse } from "../http/errors.ts";
import { DEVICE_HEADER, readCookie } from "../http/cookies.ts";
import { ErrorSchema } from "./schemas.ts";

export type AuthApp = OpenAPIHono<AuthEnv>;

type Method = "get" | "post" | "patch" | "put" | "delete";

export interface RouteSpec<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, A extends boolean> {
  method: Method;
  /** Path relative to the mount, e.g. "/sign-in/email"; also the key of its rule in `rateLimit.rules`. */
  path: string;
  /** Stable operation name (`signInEmail`): the OpenAPI `operationId` and the `@latchkey/client` method name. */
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  body?: B;
  query?: Q;
  /** Path parameters (`/callback/{provider}`), documented; the handler reads them with `c.req.param()`. */
  params?: z.ZodObject;
  /**
   * The success answer is a 302 (a browser navigation, e.g. the OAuth callback): documented with this description
   * and its `Location` header instead of the 200.
   */
  redirect?: string;
  /** Schema and description of the 200 answer. */
  response: {
    schema: z.ZodType;
    description: string;
    headers?: Record<string, { description: string; schema: { type: "string" } }>;
  };
  /**
   * Error statuses worth documenting beyond the automatic ones: 400 with a body or query, 401 with `authenticated`,
   * and for every state-changing method 403 (CSRF origin check), 413 and 415 (body rules) and 429 (rate limits).
   */
  errors?: number[];
  /**
   * Needs a session: without one the answer is 401 `INVALID_CREDENTIALS` before the handler runs, and the handler
   * receives the validated session as `input.session`. Documents the security requirement and the 401.
   */
  authenticated?: A;
  /**
   * With `authenticated`: the session must be younger than `session.freshAge` (counted from its creation), else
   * 403 `SESSION_NOT_FRESH` before the handler runs. Documented in the description.
   */
  fresh?: boolean;
  /**
   * With `authenticated`: the session must be the user's own, not one an admin started by impersonating them
   * (`admin()`), else 403 `IMPERSONATION_NOT_ALLOWED` before the handler runs. Implied by `fresh`: every route that
   * asks for a recent sign-in changes a credential or the account itself.
   */
  ownSessionOnly?: boolean;
  /** Documented security alternatives when not simply "a session" (e.g. an API key header, or nothing). */
  security?: Array<Record<string, string[]>>;
  /**
   * The route's default per-IP rule (`rateLimit.rules[path]` overrides it, `false` there turns it off). The limiter
   * and the OpenAPI description both read it here.
   */
  rateLimit?: RateLimitRule;
  /** Count against the global per-IP rule too (cheap reads opt out). Default: true for non-GET. */
  globalRateLimit?: boolean;
  /** Refuse cross-site top-level navigations (sign-in and code-sending endpoints). */
  rejectNavigation?: boolean;
  /**
   * Hashes a password without a session (sign-up, sign-in, resets): each request also spends the budget all
   * callers share, `passwordHashing.unauthenticatedBudget` (503 `BUSY` past it).
   */
  hashesPassword?: boolean;
  /**
   * Password sign-in: a request carrying a device token (cookie, `latchkey-device` header or body `deviceToken`)
   * is handed the anonymous limits (per-address and per-network rules, the opt-in hashing budget) to run only when
   * the token is not a known device of the account it names (`input.device`); requests without one meet them here.
   */
  deviceAware?: boolean;
  /**
   * Emails someone: the description states the send limits in force (`email.perRecipient`, `email.recipientCap`,
   * `email.resendCooldown`) and documents their 429.
   */
  sendsEmail?: boolean;
}

export type RouteInput<B, Q, A extends boolean = false> = {
  body: B extends z.ZodType ? z.infer<B> : undefined;
  query: Q extends z.ZodType ? z.infer<Q> : undefined;
  /** The request's session, checked before the handler runs (only on `authenticated` routes). */
  session: A extends true ? ValidatedSession : undefined;
  /**
   * `deviceAware` routes, for a request that carries a device token: the token and the anonymous limits the
   * service runs unless the token is a known device of the named account. Null otherwise (the limits ran).
   */
  device: { token: string; anonymousLimits: () => Promise<void> } | null;
};

/** The device token a request carries: the `latchkey-device` header, a body `deviceToken`, or the device cookie. */
function deviceTokenOf(c: Context<AuthEnv>, body: unknown, cookieName: string): string | null {
  const header = c.req.header(DEVICE_HEADER)?.trim();
  if (header) return header;
  const field = body && typeof body === "object" ? (body as { deviceToken?: unknown }).deviceToken : undefined;
  if (typeof field === "string" && field !== "") return field;
  return readCookie(c.req.header("cookie"), cookieName);
}

const ERROR_TEXT: Record<number, string> = {
  400: "Invalid input (`INVALID_REQUEST` with `details`, or a more specific code; also a body nested more than 32 levels deep)",
  401: "Not authenticated or wrong credentials",
  403: "Forbidden: untrusted (`INVALID_ORIGIN`) or missing (`MISSING_ORIGIN`) `Origin` on a cookie-authenticated write, or the operation's own reasons",
  404: "Not found",
  405: "Wrong method for this path (`METHOD_NOT_ALLOWED`; the `Allow` header lists the right ones)",
  409: "Conflict",
  413: "Body over 64 KiB",
  415: "Body is not application/json",
  422: "Already exists",
  429: "Rate limited or locked (`Retry-After` header)",
  503: "`DATABASE_UNAVAILABLE`: the database cannot be reached, or `BUSY`: too many password hashes in flight (`Retry-After` header)",
};

// What a POST without fields accepts: no body, an empty body or `{}` (other fields are ignored).
const NoFields = z
  .object({})
  .openapi("NoFields", { description: "This endpoint takes no fields: send no body, an empty body or `{}`." });

/**
 * Registers one documented route: OpenAPI operation, validation, rate limit, session (with `authenticated`), then
 * the handler.
 */
export function defineRoute<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  A extends boolean = false,
>(
  app: AuthApp,
  tools: RequestTools,
  spec: RouteSpec<B, Q, A>,
  handler: (c: Context<AuthEnv>, input: RouteInput<B, Q, A>) => Promise<Response> | Response,
): void {
  const global = spec.globalRateLimit ?? spec.method !== "get";
  // The route's own rule, or the `rateLimit.rules` override of it.
  const rule = tools.core.ctx.rateLimiter.register(spec.path, spec.rateLimit);
  // Rules are fixed at construction: a path no rule can count skips the middleware (API-key verify is hot).
  const limited = tools.core.config.rateLimit.enabled && (rule || (global && rule !== false));
  const middleware: MiddlewareHandler<AuthEnv>[] = spec.rejectNavigation ? [rejectCrossSiteNavigation()] : [];
  // Bodiless methods aside, a route without fields still documents (and validates) an optional `{}` body.
  const optionalBody = !spec.body && spec.method !== "get" && spec.method !== "delete";
  const errors = new Set(spec.errors ?? []);
  errors.add(405);
  if (spec.body || spec.query || optionalBody) errors.add(400);
  if (spec.authenticated) errors.add(401);
  const fresh = spec.fresh === true && tools.core.config.session.freshAgeMs !== null;
  if (fresh || spec.ownSessionOnly) errors.add(403);
  if (limited) errors.add(429);
  // Every operation may meet a database that cannot be reached.
  errors.add(503);
  if (spec.method !== "get") {
    // The body rules and the CSRF check run before any route on every state-changing request.
    for (const status of [403, 413, 415, 429]) errors.add(status);
  }
  const responses: Record<string, unknown> = spec.redirect
    ? {
        302: {
          description: spec.redirect,
          headers: { location: { description: "Where the browser goes next", schema: { type: "string" } } },
        },
      }
    : {
        200: {
          description: spec.response.description,
          content: { "application/json": { schema: spec.response.schema } },
          headers: spec.response.headers,
        },
      };
  for (const status of [...errors].sort((a, b) => a - b))
    responses[status] = {
      description: ERROR_TEXT[status] ?? "Error",
      content: { "application/json": { schema: ErrorSchema } },
    };
  const route = createRoute({
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: ((text: string) =>
      rule && tools.core.config.rateLimit.enabled ? withRuleText(text, spec.path, rule) : text)(
      withEmailLimitsText(withFreshText(spec.description, fresh), spec.sendsEmail ? tools.core.config.email : null),
    ),
    // Public operations say so explicitly (`[]`): there is no document-wide requirement.
    security: spec.security ?? (spec.authenticated ? [{ sessionCookie: [] }, { bearer: [] }] : []),
    middleware,
    request: {
      ...(spec.body ? { body: { content: { "application/json": { schema: spec.body } }, required: true } } : {}),
      ...(optionalBody
        ? {
            body: {
              content: { "application/json": { schema: NoFields } },
              required: false,
              description: "Optional: no body, an empty body and `{}` are all accepted.",
            },
          }
        : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.params ? { params: spec.params } : {}),
    },
    responses: responses as never,
  });
  app.openapi(route, routeHandler(tools, spec, { limited: Boolean(limited), global, fresh }, handler) as never);
}

/**
 * What runs after validation: the rate limit, the password-hash budget and the session check where the route has
 * them, then the handler. A route with none of them calls its handler directly: a handler that can answer at once
 * (a cached get-session) then answers without a promise.
 */
function routeHandler<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, A extends boolean>(
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

const UNITS: Array<[ms: number, name: string]> = [
  [86_400_000, "day"],
  [3_600_000, "hour"],
  [60_000, "minute"],
  [1000, "second"],
];

/**
 * A rule in words: "3 requests per minute", "20 requests per 5 minutes".
 *
 * @example
 * ruleText({ windowMs: 60_000, max: 3 }); // "3 requests per minute"
 */
export function ruleText(rule: ResolvedRule): string {
  const [size, unit] = UNITS.find(([ms]) => rule.windowMs % ms === 0) ?? [1, "millisecond"];
  const count = rule.windowMs / size;
  const window = count === 1 ? unit : `${count} ${unit}s`;
  return `${rule.max} ${rule.max === 1 ? "request" : "requests"} per ${window}`;
}

/** The description with the route's rule in force appended, so the document states the limit it enforces. */
function withRuleText(description: string, path: string, rule: ResolvedRule): string {
  return `${description}\n\nRate limit: ${ruleText(rule)} per IP (\`rateLimit.rules["${path}"]\`).`;
}

/** "5 emails per 15 minutes": a send rule in words. */
function emailsText(rule: ResolvedRule): string {
  return ruleText(rule).replace("requests", "emails").replace("request", "email");
}

/** The description with the email send limits in force appended (routes that email someone). */
function withEmailLimitsText(description: string, email: ResolvedConfig["email"] | null): string {
  if (!email) return description;
  const budget = email.perRecipient
    ? `at most ${emailsText(email.perRecipient)} (\`email.perRecipient\`) across every route that emails`
    : null;
  const cooldown =
    email.resendCooldownMs === null
      ? null
      : `one per purpose every ${ruleText({ windowMs: email.resendCooldownMs, max: 1 }).replace(/^1 request per /, "")} (\`email.resendCooldown\`)`;
  const perRequester = [budget, cooldown].filter((part) => part !== null);
  const cap = email.recipientCap
    ? ` Every network together: at most ${emailsText(email.recipientCap)} to one address (\`email.recipientCap\`); requests from the account's own session or device cookie are not counted in it.`
    : "";
  if (perRequester.length === 0 && cap === "") return description;
  const first =
    perRequester.length === 0
      ? ""
      : ` per requesting network (IPv4 /24, IPv6 /48), or for requests carrying the account's own session or device cookie, each address receives ${perRequester.join(" and ")}.`;
  return `${description}\n\nEmail limits:${first}${cap} Past them: 429 \`RATE_LIMITED\` with \`Retry-After\`, for registered and unknown addresses alike; nothing is issued or sent, so the code or link already sent stays valid.`;
}

/** The description with the freshness rule appended on routes that need a recent sign-in. */
function withFreshText(description: string, fresh: boolean): string {
  return fresh
    ? `${description}\n\nNeeds a fresh session: one created less than \`session.freshAge\` ago (403 \`SESSION_NOT_FRESH\` otherwise; sign in again).`
    : description;
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
