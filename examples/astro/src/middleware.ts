import { defineMiddleware } from "astro:middleware";
import { AuthError } from "@latchkey/core";
import { errorResponse } from "@latchkey/hono-adapter";
import { latchkey } from "./lib/auth.ts";

/** Latchkey's routes at /auth; every other request gets `Astro.locals.user` and `Astro.locals.session`. */
export const onRequest = defineMiddleware(async (context, next) => {
  const { auth, sessionOf } = latchkey();
  // The peer address Astro's Node adapter read from the socket: per-IP rate limits.
  const env = { clientAddress: context.clientAddress };
  if (context.url.pathname === "/auth" || context.url.pathname.startsWith("/auth/")) {
    return auth.handler(context.request, env);
  }
  let found: Awaited<ReturnType<typeof sessionOf>>;
  try {
    found = await sessionOf(context.request, env);
  } catch (error) {
    // A cookie POST from an untrusted origin (CSRF: 403) or a database outage (503): Latchkey's JSON answer.
    if (error instanceof AuthError) return errorResponse(error);
    throw error;
  }
  const { user, session, setCookie } = found;
  context.locals.user = user;
  context.locals.session = session;
  const response = await next();
  if (setCookie.length === 0) return response;
  // The session slid forward: send its refreshed cookie (on a copy when the response's headers are immutable).
  const answer = new Response(response.body, response);
  for (const cookie of setCookie) answer.headers.append("set-cookie", cookie);
  return answer;
});
