import { equal, ok } from "./assert.ts";
import { cookieFrom, expectStatus, type E2eSession } from "./client.ts";
import type { JourneyContext } from "./journey.ts";

/** The password every journey signs up with (non-ASCII on purpose: UTF-8 must hash alike everywhere). */
export const E2E_PASSWORD = "correct horse battery stäple";

/**
 * Signs up a fresh user with a password and returns the session as cookie and Bearer token.
 *
 * @example
 * const ada = await signUpWithPassword(context, "ada");
 * await context.client.call("GET", "/get-session", { bearer: ada.token });
 */
export async function signUpWithPassword(context: JourneyContext, label: string): Promise<E2eSession> {
  const email = context.email(label);
  const res = await context.client.call("POST", "/sign-up/email", {
    body: { email, password: E2E_PASSWORD, name: label },
  });
  const body = expectStatus(res, 200, "sign-up") as {
    user: { id: string; email: string };
    credentials: { token: string };
  };
  equal(body.user.email, email, "sign-up returns the user");
  ok(
    typeof body.credentials?.token === "string" && body.credentials.token.length >= 40,
    "sign-up returns a session token",
  );
  const cookie = cookieFrom(res);
  ok(cookie.endsWith(`=${body.credentials.token}`), "sign-up sets the session cookie");
  return { token: body.credentials.token, cookie, userId: body.user.id, email };
}
