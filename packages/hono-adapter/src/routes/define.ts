import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AuthEnv } from "../env.ts";
import type { RequestTools } from "../middleware/session.ts";
import { rejectCrossSiteNavigation } from "../middleware/security.ts";
import { AuthError } from "@latchkey/core";
import { errorResponse } from "../http/errors.ts";
import { ErrorSchema } from "./schemas.ts";

export type AuthApp = OpenAPIHono<AuthEnv>;

type Method = "get" | "post" | "patch" | "put" | "delete";

export interface RouteSpec<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined> {
  method: Method;
  /** Path relative to the mount, e.g. "/sign-in/email"; also the rate-limit rule key. */
  path: string;
  tag: string;
  summary: string;
  description: string;
  body?: B;
  query?: Q;
  /** Schema and description of the 200 answer. */
  response: { schema: z.ZodType; description: string; headers?: Record<string, { description: string; schema: { type: "string" } }> };
  /** Error statuses worth documenting (400 is always listed when there is a body). */
  errors?: number[];
  /** Needs a session (documents the security requirement; the handler still enforces it). */
  authenticated?: boolean;
  /** Count against the global per-IP rule too (cheap reads opt out). Default: true for non-GET. */
  globalRateLimit?: boolean;
  /** Refuse cross-site top-level navigations (sign-in and code-sending endpoints). */
  rejectNavigation?: boolean;
}

export type RouteInput<B, Q> = {
  body: B extends z.ZodType ? z.infer<B> : undefined;
  query: Q extends z.ZodType ? z.infer<Q> : undefined;
};

const ERROR_TEXT: Record<number, string> = {
  400: "Invalid input (`INVALID_REQUEST` with `details`, or a more specific code)",
  401: "Not authenticated or wrong credentials",
  403: "Forbidden (origin, permissions, verification)",
  404: "Not found",
  409: "Conflict",
  413: "Body over 64 KiB",
  415: "Body is not application/json",
  422: "Already exists",
  429: "Rate limited or locked (`Retry-After` header)",
  503: "`DATABASE_UNAVAILABLE`: the database cannot be reached (`Retry-After` header)",
};

function rateLimit(tools: RequestTools, path: string, global: boolean): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    try {
      await tools.core.ctx.rateLimiter.check(tools.meta(c).ip, path, { global });
    } catch (error) {
      return errorResponse(error);
    }
    return next();
  };
}

/** Registers one documented route: OpenAPI operation, validation, rate limit, then the handler. */
export function defineRoute<B extends z.ZodType | undefined = undefined, Q extends z.ZodObject | undefined = undefined>(
  app: AuthApp,
  tools: RequestTools,
  spec: RouteSpec<B, Q>,
  handler: (c: Context<AuthEnv>, input: RouteInput<B, Q>) => Promise<Response>,
): void {
  const global = spec.globalRateLimit ?? spec.method !== "get";
  const rule = tools.core.ctx.rateLimiter.ruleFor(spec.path);
  // Rules are fixed at construction: a path no rule can count skips the middleware (API-key verify is hot).
  const limited = tools.core.config.rateLimit.enabled && (rule || (global && rule !== false));
  const middleware: MiddlewareHandler<AuthEnv>[] = limited ? [rateLimit(tools, spec.path, global)] : [];
  if (spec.rejectNavigation) middleware.unshift(rejectCrossSiteNavigation());
  const errors = new Set(spec.errors ?? []);
  if (spec.body || spec.query) errors.add(400);
  if (spec.authenticated) errors.add(401);
  if (spec.method !== "get") errors.add(429);
  errors.add(503);
  if (spec.body) {
    errors.add(413);
    errors.add(415);
  }
  const responses: Record<string, unknown> = {
    200: { description: spec.response.description, content: { "application/json": { schema: spec.response.schema } }, headers: spec.response.headers },
  };
  for (const status of [...errors].sort()) responses[status] = { description: ERROR_TEXT[status] ?? "Error", content: { "application/json": { schema: ErrorSchema } } };
  const route = createRoute({
    method: spec.method,
    path: spec.path,
    tags: [spec.tag],
    summary: spec.summary,
    description: spec.description,
    security: spec.authenticated ? [{ sessionCookie: [] }, { bearer: [] }] : [],
    middleware,
    request: {
      ...(spec.body ? { body: { content: { "application/json": { schema: spec.body } }, required: true } } : {}),
      ...(spec.query ? { query: spec.query } : {}),
    },
    responses: responses as never,
  });
  app.openapi(route, (async (c: Context<AuthEnv>) => {
    const req = c.req as unknown as { valid(target: "json" | "query"): unknown };
    const input = { body: spec.body ? req.valid("json") : undefined, query: spec.query ? req.valid("query") : undefined } as RouteInput<B, Q>;
    const nul = nulPath(input.body, "") ?? nulPath(input.query, "");
    if (nul !== null) {
      return errorResponse(new AuthError("INVALID_REQUEST", "The request is invalid", { details: [{ path: nul, message: "Text may not contain NUL (U+0000)" }] }));
    }
    return handler(c, input);
  }) as never);
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
