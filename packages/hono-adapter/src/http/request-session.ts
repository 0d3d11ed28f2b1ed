import { Hono } from "hono";
import type { SessionView, UserView } from "@latchkey/core";
import type { Auth } from "../create-auth.ts";
import { originRefusal } from "../middleware/security.ts";

/** What `requestSession` finds: the user and session (nulls when not signed in), and the cookie to send back. */
export interface RequestSession {
  user: UserView | null;
  session: SessionView | null;
  /**
   * The refreshed session cookie when the session slid forward (cookie requests only), or the cookies that clear
   * two session cookies sent together (neither is trusted): send them on your answer.
   */
  setCookie: string[];
}

/** The lookup behind `requestSession` and `nodeSession`: the request's method, URL and headers, never its body. */
export type SessionLookup = (method: string, url: string, headers: Headers, env?: unknown) => Promise<RequestSession>;

/**
 * Runs Latchkey's own `optionalUser` on a request's headers, after the CSRF check `auth.middleware` applies. What
 * goes wrong is thrown as it is, for the host's guard to answer: an `AuthError` (`INVALID_ORIGIN` or
 * `MISSING_ORIGIN` 403 for a state-changing cookie request from an untrusted origin, `DATABASE_UNAVAILABLE` 503
 * during an outage) or the unexpected error itself; nothing is written to the console.
 */
export function sessionLookup(auth: Pick<Auth, "optionalUser" | "core">): SessionLookup {
  const { config } = auth.core;
  // The probe's requests are its own, so each failure is found again by the request that met it.
  const failures = new WeakMap<Request, unknown>();
  const probe = new Hono().all("*", auth.optionalUser, (c) =>
    c.json({ user: c.var.user, session: c.var.session } satisfies Omit<RequestSession, "setCookie">),
  );
  probe.onError((error, c) => {
    failures.set(c.req.raw, error);
    return new Response(null, { status: 500 });
  });
  return async (method, url, headers, env) => {
    const refused = originRefusal(method, (name) => headers.get(name) ?? undefined, config);
    if (refused) throw refused;
    // Only the credentials matter here (cookie, Authorization): a GET with the request's headers, never its body.
    const request = new Request(url, { headers });
    const response = await probe.fetch(request, env);
    if (failures.has(request)) throw failures.get(request);
    const found = (await response.json()) as Omit<RequestSession, "setCookie">;
    return { ...found, setCookie: response.headers.getSetCookie() };
  };
}

/**
 * The session of a web `Request` (cookie or Bearer), for frameworks that hand you one: a SvelteKit `handle` hook,
 * Astro middleware, a Next.js route handler or server action, a Remix loader. Runs Latchkey's own `optionalUser` on
 * the request's headers, so it reads exactly what `auth.requireUser` reads, after the same CSRF check as
 * `auth.middleware`: a state-changing request (POST, PUT, PATCH, DELETE) that carries the session cookie from an
 * untrusted origin throws a 403 `AuthError` (`INVALID_ORIGIN`, `MISSING_ORIGIN`); a database outage throws
 * `DATABASE_UNAVAILABLE` (503). Answer them with `errorResponse(error)`. `env` is passed on as the Hono env
 * (`{ clientAddress }` names the client).
 *
 * @example
 * const sessionOf = requestSession(auth);
 * const { user, setCookie } = await sessionOf(event.request);
 */
export function requestSession(
  auth: Pick<Auth, "optionalUser" | "core">,
): (request: Request, env?: unknown) => Promise<RequestSession> {
  const lookup = sessionLookup(auth);
  return (request, env) => lookup(request.method, request.url, request.headers, env);
}
