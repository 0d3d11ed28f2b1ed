import type { OpenAPIHono, z } from "@hono/zod-openapi";
import type { RateLimitRule, ValidatedSession } from "@latchkey/core";
import type { AuthEnv } from "../env.ts";

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
