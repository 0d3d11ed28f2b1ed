import { AuthError, OAUTH_PLUGIN_ID, type AuthCore } from "@latchkey/core";
import type { MiddlewareHandler } from "hono";
import { errorResponse } from "./http/errors.ts";
import { csrfProtection } from "./middleware/security.ts";
import { bodyGuard } from "./middleware/body-guard.ts";
import { SOCIAL_CALLBACK_PATH, SOCIAL_FORM_PATHS } from "./routes/oauth/index.ts";
import type { AuthApp } from "./routes/define.ts";

/** Path -> methods of every route registered so far (HEAD wherever GET is: Hono answers it from GET). */
export function allowedMethods(app: AuthApp): Map<string, string[]> {
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
export function registerFront(
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

/**
 * The body guard and the CSRF check of every state-changing request. Social sign-in takes HTML forms on two paths
 * (a plain form's start, a provider's `form_post` callback), and that callback comes cross-site by design.
 */
export function requestGuards(core: AuthCore): [MiddlewareHandler, MiddlewareHandler] {
  const social = core.plugins.has(OAUTH_PLUGIN_ID);
  return [
    bodyGuard(social ? SOCIAL_FORM_PATHS : null),
    csrfProtection(core.config, social ? SOCIAL_CALLBACK_PATH : null),
  ];
}

/** Where the sub-app is mounted, from the catch-all's own pattern (`/auth/*` -> `/auth`). */
export function mountPrefix(routePath: string): string {
  return routePath.replace(/\/?\*$/, "");
}

export function invalidRequest(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): Response {
  // A body that is not an object at all (`[]`, `"x"`) has no field to name: its path is `body`.
  const details = issues.map((i) => ({
    path: i.path.length === 0 ? "body" : i.path.map(String).join("."),
    message: i.message,
  }));
  return errorResponse(new AuthError("INVALID_REQUEST", "The request is invalid", { details }));
}
