import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono, type MiddlewareHandler } from "hono";
import {
  AuthError,
  createAuthCore,
  OAUTH_PLUGIN_ID,
  type AuthApi,
  type AuthCache,
  type AuthCore,
  type AuthEvents,
  type AuthOptions,
  type AuthPlugin,
  type InputOf,
  type OptionShape,
} from "@latchkey/core";
import { defaulted, group, optional, shapeOf } from "@latchkey/core/internal";
import type { AuthEnv, AuthVariables, OptionalAuthVariables } from "./env.ts";
import { errorResponse } from "./http/errors.ts";
import { hostErrorResponse, keepRefreshedCookie, withKeptCookies } from "./http/host-response.ts";
import { fromSocket, type GetClientIp } from "./http/client-ip.ts";
import { csrfProtection, csrfRefusal, MUTATING_METHODS } from "./middleware/security.ts";
import { applySecurityHeaders, securityHeaders } from "./middleware/security-headers.ts";
import { bodyGuard } from "./middleware/body-guard.ts";
import { CORS_SCHEMA, corsMiddleware, type CorsOptions } from "./middleware/cors.ts";
import { createDependencies, createRequestTools, type RequestTools } from "./middleware/session.ts";
import { watchForProxy } from "./http/proxy-hint.ts";
import { FEATURE_ROUTES } from "./routes/index.ts";
import { SOCIAL_CALLBACK_PATH, SOCIAL_FORM_PATHS } from "./routes/oauth/index.ts";
import { registerDocsRoutes } from "./routes/docs/index.ts";
import type { AuthApp } from "./routes/define.ts";
import { ADAPTER_VERSION } from "./version.ts";
import { createRequireApiKey, type ApiKeyVariables, type RequireApiKeyOptions } from "./routes/api-key/index.ts";
import {
  createRequireOrganization,
  type OrganizationVariables,
  type RequireOrganizationOptions,
} from "./routes/organization/index.ts";
import { instrument } from "./telemetry/index.ts";

/** The one definition of the options hono-adapter adds to core's (`AUTH_SCHEMA`): type, default, docs row. */
const ADAPTER_SCHEMA = {
  /**
   * client address for rate limits; headers are never trusted unless you choose a preset that reads them. Presets:
   * `fromSocket`, `fromCfConnectingIp`, `fromForwardedFor(hops)`
   * @defaultValue `clientIp.fromSocket`
   */
  getClientIp: defaulted<GetClientIp>(fromSocket),
  /**
   * OpenTelemetry spans and metrics through the app's `@opentelemetry/api` (optional peer; nothing is recorded
   * without it or without a registered SDK); `false` turns it off. See [observability.md](observability.md)
   */
  telemetry: defaulted<boolean>(true),
  /**
   * CORS for browser apps on other origins. `true`: CORS with credentials for `trustedOrigins` (preflights answer 204
   * on every auth path; `set-auth-jwt` and `retry-after` exposed). An object turns it on with these keys: see
   * [client.md](client.md). Anything else (`"false"`, `0`) is an `AuthConfigError`
   */
  cors: defaulted<boolean | CorsOptions>(false, { fields: CORS_SCHEMA }),
  /** The API explorer at `/reference`. */
  reference: group({
    /** the explorer at `/reference` */
    enabled: defaulted<boolean>(true),
    /**
     * where the explorer's script loads from; serving it locally needs the optional peer `@scalar/api-reference`
     * (without it and without `scriptUrl`, `/reference` answers 404 saying what to install)
     * @defaultValue served locally
     */
    scriptUrl: optional<string>(),
    /**
     * the explorer's title
     * @defaultValue `"<appName> auth API"`
     */
    title: optional<string>(),
  }),
};

/** Everything `createAuth` accepts: core's options (`AuthOptions`) and the HTTP ones (`ADAPTER_SCHEMA`). */
export type CreateAuthOptions<P extends readonly AuthPlugin[] = readonly AuthPlugin[]> = AuthOptions<P> &
  InputOf<typeof ADAPTER_SCHEMA>;

/**
 * The keys `createAuth` accepts on top of core's (`AUTH_OPTION_SHAPE` in @latchkey/core, from `ADAPTER_SCHEMA`);
 * anything else is an `AuthConfigError` naming the nearest valid key.
 */
export const ADAPTER_OPTION_SHAPE: OptionShape = shapeOf(ADAPTER_SCHEMA);

/**
 * The object `createAuth` returns. `P` is the tuple of plugins passed; it types `api`. A host that stores the
 * object can write plain `Auth` (any plugins: `api` then lists `BaseApi` only) or `ReturnType<typeof buildAuth>`
 * to keep the plugin methods.
 *
 * @example
 * let auth: Auth | undefined; // accepts any createAuth(...) result
 */
export interface Auth<P extends readonly AuthPlugin[] = readonly AuthPlugin[]> {
  /** Unprefixed Hono sub-app: `app.route("/auth", auth.app)`. */
  app: AuthApp;
  /** Standalone WinterCG handler: `basePath` + every middleware. `export default { fetch: auth.handler }`. */
  handler: (request: Request, env?: unknown, executionCtx?: ExecutionContextLike) => Promise<Response>;
  /**
   * For the host app's own routes: CSRF, security headers (on a copy when a route returns immutable headers), the
   * refreshed session cookie on the final response, and error rendering (an `AuthError` as its JSON error, any
   * other unexpected error as the bare JSON 500).
   */
  middleware: MiddlewareHandler;
  requireUser: MiddlewareHandler<{ Variables: AuthVariables }>;
  requireSession: MiddlewareHandler<{ Variables: AuthVariables }>;
  optionalUser: MiddlewareHandler<{ Variables: OptionalAuthVariables }>;
  optionalSession: MiddlewareHandler<{ Variables: OptionalAuthVariables }>;
  /** Host routes protected by an API key (needs `apiKeys()`): sets `c.var.apiKey` and `c.var.user`. */
  requireApiKey(options?: RequireApiKeyOptions): MiddlewareHandler<{ Variables: ApiKeyVariables }>;
  /**
   * Host routes acting for the session's active organization (needs `organizations()`): sets `c.var.user`,
   * `c.var.session` and `c.var.organization` (`{ id, role }`); 401 without a session, 404 without an active
   * organization the caller belongs to, 403 when the role lacks `permissions`.
   */
  requireOrganization(options?: RequireOrganizationOptions): MiddlewareHandler<{ Variables: OrganizationVariables }>;
  /** Trusted server-side operations (no HTTP): `BaseApi` plus the `api` of each plugin passed. */
  api: AuthApi<P>;
  events: AuthEvents;
  /** With `captureOtp: true` (tests only): the latest plaintext code or token sent to an email. */
  getOtp(identifier: string): string | undefined;
  /**
   * `createAuth({ cache })`: `stats()` (hits, misses, invalidations received, time bypassed) and `flush()`; null
   * when the cache is off.
   */
  cache: AuthCache | null;
  /** The engine underneath, for adapters and advanced use. */
  core: AuthCore<P>;
  /** Request-scoped helpers shared by the feature routes. */
  tools: RequestTools;
  /**
   * Releases the store's connections (and those of `counters`, when they have their own) after the requests in
   * flight finish with them. Call it on shutdown (SIGTERM). Afterwards a store with connections answers 503; the
   * memory store has nothing to release and keeps answering.
   */
  close(): Promise<void>;
}

export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
}

/** Path -> methods of every route registered so far (HEAD wherever GET is: Hono answers it from GET). */
function allowedMethods(app: AuthApp): Map<string, string[]> {
  const byPath = new Map<string, Set<string>>();
  for (const route of app.routes) {
    if (route.method === "ALL" || route.path.includes("*")) continue;
    const set = byPath.get(route.path) ?? new Set<string>();
    set.add(route.method);
    if (route.method === "GET") set.add("HEAD");
    byPath.set(route.path, set);
  }
  const order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
  return new Map(
    [...byPath].map(([path, set]) => [path, [...set].sort((a, b) => order.indexOf(a) - order.indexOf(b))]),
  );
}

/**
 * What runs in front of every route of the sub-app, in this order: the request span (outermost: its span and
 * duration cover every answer, preflights and refusals included), CORS when on (before the body and CSRF checks, so
 * preflights answer first), the security headers (on every answer, errors too).
 */
function registerFront(
  app: AuthApp,
  requestSpan: MiddlewareHandler,
  cors: MiddlewareHandler | null,
  headers: MiddlewareHandler,
): void {
  if (cors) {
    app.use("*", requestSpan);
    app.use("*", cors);
    app.use("*", headers);
    return;
  }
  // Without CORS, the two steps in the same order as one layer: the sub-app wraps each of its layers in an error
  // handler of its own on every request, and neither step answers or throws by itself (what comes after them is
  // rendered by its own layer before they see it).
  app.use("*", (c, next) => requestSpan(c, () => headers(c, next) as Promise<void>));
}

/** Where the sub-app is mounted, from the catch-all's own pattern (`/auth/*` -> `/auth`). */
/**
 * The body guard and the CSRF check of every state-changing request. Social sign-in takes HTML forms on two paths
 * (a plain form's start, a provider's `form_post` callback), and that callback comes cross-site by design.
 */
function requestGuards(core: AuthCore): [MiddlewareHandler, MiddlewareHandler] {
  const social = core.plugins.has(OAUTH_PLUGIN_ID);
  return [
    bodyGuard(social ? SOCIAL_FORM_PATHS : null),
    csrfProtection(core.config, social ? SOCIAL_CALLBACK_PATH : null),
  ];
}

function mountPrefix(routePath: string): string {
  return routePath.replace(/\/?\*$/, "");
}

function invalidRequest(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): Response {
  // A body that is not an object at all (`[]`, `"x"`) has no field to name: its path is `body`.
  const details = issues.map((i) => ({
    path: i.path.length === 0 ? "body" : i.path.map(String).join("."),
    message: i.message,
  }));
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
