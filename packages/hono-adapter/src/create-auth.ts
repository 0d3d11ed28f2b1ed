import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono, type MiddlewareHandler } from "hono";
import { AuthError, createAuthCore, type AuthPlugin } from "@latchkey/core";
import type { AuthEnv } from "./env.ts";
import { errorResponse } from "./http/errors.ts";
import { hostErrorResponse, keepRefreshedCookie, withKeptCookies } from "./http/host-response.ts";
import { fromSocket } from "./http/client-ip.ts";
import { csrfRefusal, MUTATING_METHODS } from "./middleware/security.ts";
import { applySecurityHeaders, securityHeaders } from "./middleware/security-headers.ts";
import { corsMiddleware } from "./middleware/cors.ts";
import { createDependencies, createRequestTools } from "./middleware/session.ts";
import { watchForProxy } from "./http/proxy-hint.ts";
import { FEATURE_ROUTES } from "./routes/index.ts";
import { registerDocsRoutes } from "./routes/docs/index.ts";
import type { AuthApp } from "./routes/define.ts";
import { ADAPTER_VERSION } from "./version.ts";
import { createRequireApiKey } from "./routes/api-key/index.ts";
import { createRequireOrganization } from "./routes/organization/index.ts";
import { instrument } from "./telemetry/index.ts";
import { ADAPTER_OPTION_SHAPE, ADAPTER_SCHEMA, type CreateAuthOptions } from "./adapter-options.ts";
import type { Auth } from "./auth-object.ts";
import { allowedMethods, invalidRequest, mountPrefix, registerFront, requestGuards } from "./sub-app.ts";

// The options and the returned object keep their import path here.
export { ADAPTER_OPTION_SHAPE, type CreateAuthOptions } from "./adapter-options.ts";
export type { Auth, ExecutionContextLike } from "./auth-object.ts";

/**
 * Builds the auth service: a Hono sub-app, a standalone handler, host middleware and dependencies.
 *
 * @example
 * import { Hono } from "hono";
 * import { createAuth } from "@latchkey/hono-adapter";
 * import { memoryStore } from "@latchkey/memory-store";
 *
 * const auth = createAuth({ secret: process.env.AUTH_SECRET!, database: memoryStore(), baseUrl: "https://app.example" });
 * const app = new Hono();
 * app.use("*", auth.middleware);
 * app.route("/auth", auth.app);
 * app.get("/me", auth.requireUser, (c) => c.json(c.var.user));
 */
export function createAuth<const P extends readonly AuthPlugin[] = []>(options: CreateAuthOptions<P>): Auth<P> {
  const telemetry = instrument(options);
  const core = createAuthCore<P>(telemetry.options, ADAPTER_OPTION_SHAPE);
  telemetry.countEvents(core);
  const { config } = core;
  // The socket's address in production: watched for the one private address a proxy in front would give them all.
  const getClientIp = options.getClientIp ?? ADAPTER_SCHEMA.getClientIp.default;
  const tools = createRequestTools(
    core,
    getClientIp === fromSocket && config.environment === "production"
      ? watchForProxy(getClientIp, core.logger)
      : getClientIp,
  );

  const app: AuthApp = new OpenAPIHono<AuthEnv>({
    defaultHook: (result) => (result.success ? undefined : invalidRequest(result.error.issues)),
  });
  const cors = corsMiddleware(options.cors ?? ADAPTER_SCHEMA.cors.default, config.trustedOrigins);
  registerFront(app, telemetry.middleware(mountPrefix), cors, securityHeaders(config));
  // Registered for the state-changing methods only: a GET passes two layers fewer (each one a wrapped handler,
  // since the sub-app renders its own errors), and neither guard has anything to check on it.
  app.on([...MUTATING_METHODS], "*", ...requestGuards(core));
  app.onError((error, c) => withKeptCookies(c, errorResponse(error, core.logger)));
  for (const register of FEATURE_ROUTES) register(app, tools);
  if (options.reference?.enabled !== false) {
    registerDocsRoutes(app, {
      title: options.reference?.title ?? `${config.appName} auth API`,
      version: ADAPTER_VERSION,
      scriptUrl: options.reference?.scriptUrl,
      cookieName: config.cookies.name,
      baseOrigin: config.baseOrigin,
    });
  }
  // A known path with another method is 405 with `Allow`; unknown paths under the mount (and disabled
  // features) answer JSON 404. Both carry the security headers.
  const allowed = allowedMethods(app);
  app.all("*", (c) => {
    const methods = allowed.get(c.req.path.slice(mountPrefix(c.req.routePath).length) || "/");
    if (!methods) return errorResponse(new AuthError("NOT_FOUND", "No such endpoint"));
    const response = errorResponse(
      new AuthError("METHOD_NOT_ALLOWED", `${c.req.method} is not supported here; use ${methods.join(" or ")}`),
    );
    response.headers.set("allow", methods.join(", "));
    return response;
  });

  const root = new Hono();
  root.use("*", securityHeaders(config));
  root.route(config.basePath || "/", app);
  root.notFound(() => errorResponse(new AuthError("NOT_FOUND", "No such endpoint")));
  root.onError((error) => errorResponse(error, core.logger));

  // One straight function rather than the three middlewares nested: it runs in front of every host route.
  const middleware: MiddlewareHandler = async (c, next) => {
    const rejected = csrfRefusal(c, config);
    if (rejected) c.res = rejected;
    else {
      await next();
      if (c.error) {
        const rendered = hostErrorResponse(c.error, c.res, core.logger);
        if (rendered) {
          // The bare 500 carries nothing of the failed answer (its headers may describe another body); an
          // AuthError's answer keeps what the route had set (Hono merges the headers), as it always did.
          if (!(c.error instanceof AuthError)) c.res = undefined;
          c.res = rendered;
        }
      }
      keepRefreshedCookie(c);
    }
    applySecurityHeaders(c, config);
  };

  const deps = createDependencies(tools);
  return {
    app,
    handler: async (request, env, executionCtx) => root.fetch(request, env, executionCtx as never),
    middleware,
    ...deps,
    requireApiKey: createRequireApiKey(tools),
    requireOrganization: createRequireOrganization(tools),
    api: core.api,
    events: core.events,
    getOtp: (identifier) => core.getOtp(identifier),
    cache: core.cache,
    core,
    tools,
    async close() {
      await Promise.all([options.database.close(), options.counters?.close?.(), core.cache?.close()]);
    },
  };
}
