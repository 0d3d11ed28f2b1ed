import type { Context } from "hono";
import type { SignInResult } from "@latchkey/core";
import { setCookie } from "./cookies.ts";

/**
 * Answers a sign-in of any kind (password, emailed code, verification link): the session cookie plus
 * `{user, session, credentials}`.
 *
 * @example
 * async (c, { body }) => signInResponse(c, await core.emailPassword.signIn(body, tools.meta(c)));
 */
export function signInResponse(c: Context, result: SignInResult): Response {
  setCookie(c, result.cookie);
  return c.json({ user: result.user, session: result.session, credentials: result.credentials });
}
