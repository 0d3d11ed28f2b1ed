import type { Handle, ServerInit } from "@sveltejs/kit/hooks";
import { AuthError } from "@latchkey/core";
import { errorResponse } from "@latchkey/hono-adapter";
import { latchkey } from "./lib/server/auth.ts";

/** At server start: a bad configuration (a missing LATCHKEY_SECRET) stops the server before its first request. */
export const init: ServerInit = () => {
  latchkey();
};

/** Latchkey's routes at /auth; every other request gets `event.locals.user` and `event.locals.session`. */
export const handle: Handle = async ({ event, resolve }) => {
  const { auth, sessionOf } = latchkey();
  // The peer address adapter-node read from the socket (or ADDRESS_HEADER behind a proxy): per-IP rate limits.
  const env = { clientAddress: event.getClientAddress() };
  if (event.url.pathname === "/auth" || event.url.pathname.startsWith("/auth/")) {
    return auth.handler(event.request, env);
  }
  let found: Awaited<ReturnType<typeof sessionOf>>;
  try {
    found = await sessionOf(event.request, env);
  } catch (error) {
    // A cookie POST from an untrusted origin (CSRF: 403) or a database outage (503): Latchkey's JSON answer.
    if (error instanceof AuthError) return errorResponse(error);
    throw error;
  }
  const { user, session, setCookie } = found;
  event.locals.user = user;
  event.locals.session = session;
  const response = await resolve(event);
  if (setCookie.length === 0) return response;
  // The session slid forward: send its refreshed cookie (on a copy when the response's headers are immutable).
  const answer = new Response(response.body, response);
  for (const cookie of setCookie) answer.headers.append("set-cookie", cookie);
  return answer;
};
