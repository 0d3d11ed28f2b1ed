import { Hono } from "hono";
import type { SessionView, UserView } from "@latchkey/core";
import type { Auth } from "../create-auth.ts";

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

/**
 * The session of a web `Request` (cookie or Bearer), for frameworks that hand you one: a SvelteKit `handle` hook,
 * Astro middleware, a Remix loader. Runs Latchkey's own `optionalUser` on the request's headers, so it reads exactly
 * what `auth.requireUser` reads. `env` is passed on as the Hono env (`{ clientAddress }` names the client).
 *
 * @example
 * const sessionOf = requestSession(auth);
 * const { user, setCookie } = await sessionOf(event.request);
 */
export function requestSession(
  auth: Pick<Auth, "optionalUser">,
): (request: Request, env?: unknown) => Promise<RequestSession> {
  const probe = new Hono().all("*", auth.optionalUser, (c) =>
    c.json({ user: c.var.user, session: c.var.session } satisfies Omit<RequestSession, "setCookie">),
  );
  return async (request, env) => {
    // Only the credentials matter here (cookie, Authorization): a GET with the request's headers, never its body.
    const response = await probe.fetch(new Request(request.url, { headers: request.headers }), env);
    const found = (await response.json()) as Omit<RequestSession, "setCookie">;
    return { ...found, setCookie: response.headers.getSetCookie() };
  };
}
