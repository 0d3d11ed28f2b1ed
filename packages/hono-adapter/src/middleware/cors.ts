import type { MiddlewareHandler } from "hono";
import { cors as honoCors } from "hono/cors";
import { AuthConfigError, type InputOf } from "@latchkey/core";
import { defaulted, optional } from "@latchkey/core/internal";

/** The one definition of `createAuth({ cors: {...} })`'s keys: type, default, docs row (docs/options.md). */
export const CORS_SCHEMA = {
  /**
   * origins allowed to call the API with credentials; replaces `trustedOrigins` for CORS (CSRF still uses
   * `trustedOrigins`)
   * @defaultValue `trustedOrigins`
   */
  origins: optional<string[]>(),
  /**
   * extra request headers a preflight may allow
   * @defaultValue what the preflight asks
   */
  allowHeaders: optional<string[]>(),
  /** response headers scripts may read, in addition to `set-auth-jwt` and `retry-after` */
  exposeHeaders: optional<string[]>(),
  /** seconds a browser may cache a preflight answer */
  maxAge: defaulted<number>(600),
};

/** `createAuth({ cors: {...} })`: narrows or extends CORS for browser apps on other origins. */
export type CorsOptions = InputOf<typeof CORS_SCHEMA>;

/** Response headers every CORS answer exposes: the JWT plugin's header and the rate limiter's. */
const EXPOSED_HEADERS = ["set-auth-jwt", "retry-after"];

/** A short, secret-free description of a wrong option value for the error message. */
function describe(value: unknown): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (Array.isArray(value)) return "an array";
  return value === null ? "null" : typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}

/** Normalises and checks `cors.origins` (absolute URLs, reduced to their origin). */
function resolveOrigins(origins: string[], field: string): string[] {
  return origins.map((value, i) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new AuthConfigError(`${field}[${i}]`, "must be an absolute URL");
    }
    if (url.origin === "null") throw new AuthConfigError(`${field}[${i}]`, "must be an http(s) origin");
    return url.origin;
  });
}

/**
 * Hono's `cors` middleware with Latchkey's defaults: credentials allowed, only listed origins (never `*`), preflights
 * answered with 204 on every path, `set-auth-jwt` exposed.
 *
 * @example
 * app.use("*", corsMiddleware(true, config.trustedOrigins));
 */
export function corsMiddleware(option: boolean | CorsOptions, trustedOrigins: string[]): MiddlewareHandler | null {
  // Only the booleans and a plain object: `"false"`, `0` or `"yes"` (an environment variable passed through) must
  // not turn credentialed CORS on by being truthy.
  if (option !== true && option !== false && (typeof option !== "object" || option === null || Array.isArray(option)))
    throw new AuthConfigError("cors", `must be true, false or an object of CORS settings, got ${describe(option)}`);
  if (option === false) return null;
  const settings: CorsOptions = option === true ? {} : option;
  for (const key of ["origins", "allowHeaders", "exposeHeaders"] as const) {
    const list: unknown = settings[key];
    if (list !== undefined && (!Array.isArray(list) || list.some((item) => typeof item !== "string")))
      throw new AuthConfigError(`cors.${key}`, "must be an array of strings");
  }
  if (settings.maxAge !== undefined && (!Number.isInteger(settings.maxAge) || settings.maxAge < 0)) {
    throw new AuthConfigError("cors.maxAge", "must be a whole number of seconds (0 or more)");
  }
  const origins = new Set(
    settings.origins === undefined ? trustedOrigins : resolveOrigins(settings.origins, "cors.origins"),
  );
  return honoCors({
    origin: (origin) => (origins.has(origin) ? origin : null),
    credentials: true,
    allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    ...(settings.allowHeaders ? { allowHeaders: settings.allowHeaders } : {}),
    exposeHeaders: [...new Set([...EXPOSED_HEADERS, ...(settings.exposeHeaders ?? []).map((h) => h.toLowerCase())])],
    maxAge: settings.maxAge ?? CORS_SCHEMA.maxAge.default,
  });
}
