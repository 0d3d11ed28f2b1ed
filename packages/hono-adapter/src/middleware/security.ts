import type { Context, MiddlewareHandler } from "hono";
import { AuthError, originOf, type ResolvedConfig } from "@latchkey/core";
import { errorResponse } from "../http/errors.ts";
import { readCookie } from "../http/cookies.ts";

// CSRF: the origin check of state-changing requests that carry the session cookie, and of cross-site navigations.

/** The methods that change state: the body rules and the CSRF check apply to these only. */
export const MUTATING_METHODS = ["POST", "PUT", "PATCH", "DELETE"] as const;
const MUTATING = new Set<string>(MUTATING_METHODS);

/**
 * CSRF: a state-changing request that carries the session cookie must come from a trusted origin
 * (`Origin`, else `Referer`): neither is 403 `MISSING_ORIGIN`, an untrusted or opaque (`null`) one 403
 * `INVALID_ORIGIN`. Bearer- or API-key-only requests carry no ambient credential and skip it. `exempt`: paths that
 * a provider POSTs to cross-site (Apple's `form_post` callback), whose own defence is the flow's state: bound to the
 * browser's state cookie, single-use, and nothing there acts on the session cookie.
 */
export function csrfProtection(config: ResolvedConfig, exempt: RegExp | null = null): MiddlewareHandler {
  return async (c, next) => (exempt?.test(c.req.path) ? next() : (csrfRefusal(c, config) ?? next()));
}

/** The CSRF check of `csrfProtection` as a function: the 403 answer for this request, or null to go on. */
export function csrfRefusal(c: Context, config: ResolvedConfig): Response | null {
  const refused = originRefusal(c.req.method, (name) => c.req.header(name), config);
  return refused === null ? null : errorResponse(refused);
}

/**
 * The CSRF check itself, on a method and a header reader, so the host guards (`requestSession`, `nodeSession`)
 * apply exactly what `auth.middleware` applies: the 403 `AuthError` for this request, or null to go on.
 */
export function originRefusal(
  method: string,
  header: (name: string) => string | undefined,
  config: ResolvedConfig,
): AuthError | null {
  if (!MUTATING.has(method.toUpperCase())) return null;
  if (readCookie(header("cookie"), config.cookies.name) === null) return null;
  const claimed = header("origin") ?? header("referer");
  if (claimed === undefined || claimed === "") {
    // Browsers send Origin on every cross-origin and same-origin POST; its absence means a non-browser client
    // (curl, a server) that carries the cookie, which should use Bearer instead, or a stripped header.
    return new AuthError(
      "MISSING_ORIGIN",
      "A request carrying the session cookie must send an Origin (or Referer) header; clients without one should authenticate with Authorization: Bearer",
    );
  }
  const origin = originOf(claimed);
  // Fetch Metadata: a browser that says the request is cross-site is believed even when a Referer names a trusted
  // page (Origin is what a browser sends on a POST; a trusted cross-site front end sends its own Origin).
  const crossSite = header("sec-fetch-site") === "cross-site" && header("origin") === undefined;
  if (origin === null || !config.trustedOrigins.includes(origin) || crossSite)
    return new AuthError("INVALID_ORIGIN", "The request origin is not trusted");
  return null;
}

/** Sign-in and code-sending endpoints also refuse cross-site top-level navigations (form posts). */
export function rejectCrossSiteNavigation(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.header("sec-fetch-site") === "cross-site" && c.req.header("sec-fetch-mode") === "navigate") {
      return errorResponse(new AuthError("INVALID_ORIGIN", "Cross-site navigations cannot call this endpoint"));
    }
    return next();
  };
}
