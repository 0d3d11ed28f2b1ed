import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { AuthError, type Logger } from "@latchkey/core";
import { errorResponse, internalErrorResponse } from "./errors.ts";

/**
 * Applies `edit` to the headers of `c.res`. A host route may return a response whose headers are immutable
 * (`Response.redirect()`, a proxied `fetch()` response): that one is copied first (status, headers and the body
 * stream, unread), then edited.
 */
export function editHeaders(c: Context, edit: (headers: Headers) => void): void {
  try {
    edit(c.res.headers);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const copy = new Response(c.res.body, c.res);
    c.res = undefined;
    c.res = copy;
    edit(c.res.headers);
  }
}

const REFRESHED_COOKIE = "latchkeyRefreshedCookie";

/**
 * Remembers a `Set-Cookie` value the session lookup set (a slid session's cookie, or the cookies that clear an
 * ambiguous one), so it reaches the final response (see `keepRefreshedCookie`).
 */
export function rememberRefreshedCookie(c: Context, value: string): void {
  const kept = c.get(REFRESHED_COOKIE) as string[] | undefined;
  if (kept) kept.push(value);
  else c.set(REFRESHED_COOKIE, [value]);
}

/**
 * After the host's handler: the cookies the session lookup set are on the final response. A handler that returns
 * its own `Response` drops the headers Hono had prepared, while the server-side expiry has already moved; append
 * them again.
 */
export function keepRefreshedCookie(c: Context): void {
  const values = c.get(REFRESHED_COOKIE) as string[] | undefined;
  if (values === undefined) return;
  const present = c.res.headers.getSetCookie();
  const missing = values.filter((value) => !present.includes(value));
  if (missing.length === 0) return;
  editHeaders(c, (headers) => {
    for (const value of missing) headers.append("set-cookie", value);
  });
}

/**
 * An error answer the sub-app built (a new `Response`, without the headers set for the answer before the error)
 * with the cookies the session lookup set: a slid session's expiry moved, and ambiguous cookies are to be cleared
 * whatever the route then answers (401 included).
 */
export function withKeptCookies(c: Context, response: Response): Response {
  const values = c.get(REFRESHED_COOKIE) as string[] | undefined;
  for (const value of values ?? []) response.headers.append("set-cookie", value);
  return response;
}

/**
 * What `auth.middleware` answers for an error thrown by a host route, given the response Hono's `onError` made of
 * it: an `AuthError` its JSON error; an `HTTPException` under 500, or any answer under 500 the host's own
 * `onError` chose, stays as it is (a deliberate answer); everything else becomes the bare JSON 500, without the
 * message or the stack. Not logged here: Hono's `onError` has seen the error (the default one logs it with its
 * stack), so it is logged once.
 */
export function hostErrorResponse(error: Error, rendered: Response, logger?: Logger): Response | null {
  if (error instanceof AuthError) return errorResponse(error, logger);
  if (error instanceof HTTPException && error.status < 500) return null;
  if (rendered.status < 500) return null;
  return internalErrorResponse();
}
