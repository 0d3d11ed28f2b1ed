import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono, type MiddlewareHandler } from "hono";
import { AuthError, createAuthCore, type AuthApi, type AuthCore, type AuthEvents, type AuthOptions } from "@latchkey/core";
import type { AuthEnv, AuthVariables, OptionalAuthVariables } from "./env.ts";
import { errorResponse } from "./http/errors.ts";
import { fromSocket, type GetClientIp } from "./http/client-ip.ts";
import { bodyGuard, csrfProtection, securityHeaders } from "./middleware/security.ts";
import { createDependencies, createRequestTools, type RequestTools } from "./middleware/session.ts";
import { FEATURE_ROUTES } from "./routes/index.ts";
import { registerDocsRoutes } from "./routes/docs/index.ts";
import type { AuthApp } from "./routes/define.ts";
import { createRequireApiKey, type ApiKeyVariables, type RequireApiKeyOptions } from "./routes/api-key/index.ts";

export interface CreateAuthOptions extends AuthOptions {
  /** Client address for rate limits. Default `clientIp.fromSocket`; headers are never trusted unless you choose a preset that reads them. */
  getClientIp?: GetClientIp;
  /** The API explorer at `/reference`. */
  reference?: { enabled?: boolean; scriptUrl?: string; title?: string };
}

/** The object `createAuth` returns. */
export interface Auth {
  /** Unprefixed Hono sub-app: `app.route("/auth", auth.app)`. */
  app: AuthApp;
  /** Standalone WinterCG handler: `basePath` + every middleware. `export default { fetch: auth.handler }`. */
  handler: (request: Request, env?: unknown, executionCtx?: ExecutionContextLike) => Promise<Response>;
  /** CSRF, security headers and AuthError rendering for the host app's own routes. */
  middleware: MiddlewareHandler;
  requireUser: MiddlewareHandler<{ Variables: AuthVariables }>;
  requireSession: MiddlewareHandler<{ Variables: AuthVariables }>;
  optionalUser: MiddlewareHandler<{ Variables: OptionalAuthVariables }>;
  optionalSession: MiddlewareHandler<{ Variables: OptionalAuthVariables }>;
  /** Host routes protected by an API key (needs `apiKeys()`): sets `c.var.apiKey` and `c.var.user`. */
  requireApiKey(options?: RequireApiKeyOptions): MiddlewareHandler<{ Variables: ApiKeyVariables }>;
  /** Trusted server-side operations (no HTTP). */
  api: AuthApi;
  events: AuthEvents;
  /** With `captureOtp: true` (tests only): the latest plaintext code or token sent to an email. */
  getOtp(identifier: string): string | undefined;
  /** The engine underneath, for adapters and advanced use. */
  core: AuthCore;
  /** Request-scoped helpers shared by the feature routes. */
  tools: RequestTools;
  /**
   * Releases the store's connections (and those of `counters`, when they have their own) after the requests in
   * flight finish with them. Call it on shutdown (SIGTERM); the auth answers 503 afterwards.
   */
  close(): Promise<void>;
}

export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
}

function invalidRequest(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): Response {
  const details = issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
  return errorResponse(new AuthError("INVALID_REQUEST", "The request is invalid", { details }));
}

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
export function createAuth(options: CreateAuthOptions): Auth {
  const core = createAuthCore(options);
  const { config } = core;
  const tools = createRequestTools(core, options.getClientIp ?? fromSocket);

  const app: AuthApp = new OpenAPIHono<AuthEnv>({
    defaultHook: (result) => (result.success ? undefined : invalidRequest(result.error.issues)),
  });
  app.use("*", securityHeaders(config));
  app.use("*", bodyGuard());
  app.use("*", csrfProtection(config));
  app.onError((error) => errorResponse(error));
  for (const register of FEATURE_ROUTES) register(app, tools);
  if (options.reference?.enabled !== false) {
    registerDocsRoutes(app, { title: options.reference?.title ?? `${config.appName} auth API`, version: "0.1.0", scriptUrl: options.reference?.scriptUrl });
  }
  // Unknown paths under the mount (and disabled features) answer JSON 404 with the security headers.
  app.all("*", () => errorResponse(new AuthError("NOT_FOUND", "No such endpoint")));

  const root = new Hono();
  root.use("*", securityHeaders(config));
  root.route(config.basePath || "/", app);
  root.notFound(() => errorResponse(new AuthError("NOT_FOUND", "No such endpoint")));
  root.onError((error) => errorResponse(error));

  const headers = securityHeaders(config);
  const csrf = csrfProtection(config);
  const middleware: MiddlewareHandler = async (c, next) => {
    await headers(c, async () => {
      const rejected = await csrf(c, async () => {
        await next();
        if (c.error instanceof AuthError) c.res = errorResponse(c.error);
      });
      if (rejected instanceof Response) c.res = rejected;
    });
  };

  const deps = createDependencies(tools);
  return {
    app,
    handler: async (request, env, executionCtx) => root.fetch(request, env, executionCtx as never),
    middleware,
    ...deps,
    requireApiKey: createRequireApiKey(tools),
    api: core.api,
    events: core.events,
    getOtp: (identifier) => core.getOtp(identifier),
    core,
    tools,
    async close() {
      await Promise.all([options.database.close(), options.counters?.close?.()]);
    },
  };
}
