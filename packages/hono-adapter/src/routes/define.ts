import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AuthEnv } from "../env.ts";
import type { RequestTools } from "../middleware/session.ts";
import { rejectCrossSiteNavigation } from "../middleware/security.ts";
import { ErrorSchema } from "./schemas.ts";
import type { AuthApp, RouteInput, RouteSpec } from "./route-spec.ts";
import { routeHandler } from "./route-handler.ts";
import { ERROR_TEXT, withEmailLimitsText, withFreshText, withRuleText } from "./route-docs.ts";

// The route types and the rule wording keep their import path here.
export type { AuthApp, RouteInput, RouteSpec } from "./route-spec.ts";
export { ruleText } from "./route-docs.ts";

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
