import type { MiddlewareHandler } from "hono";
import type { AuthApi, AuthCache, AuthCore, AuthEvents, AuthPlugin } from "@latchkey/core";
import type { AuthVariables, OptionalAuthVariables } from "./env.ts";
import type { RequestTools } from "./middleware/session.ts";
import type { AuthApp } from "./routes/define.ts";
import type { ApiKeyVariables, RequireApiKeyOptions } from "./routes/api-key/index.ts";
import type { OrganizationVariables, RequireOrganizationOptions } from "./routes/organization/index.ts";

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
