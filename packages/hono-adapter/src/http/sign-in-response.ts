import type { Context } from "hono";
import type { CookieDescriptor, ResolvedConfig, SecondFactorChallenge, SignInOutcome } from "@latchkey/core";
import { serializeCookie } from "./cookies.ts";
import { jsonAnswer } from "../middleware/security-headers.ts";

/** The request header a Bearer client sends to receive the session token in sign-in answers. */
const CREDENTIALS_HEADER = "latchkey-credentials";

/**
 * Whether a sign-in answer may carry `credentials.token`. A Bearer client asks for it (`latchkey-credentials:
 * bearer`, which `@latchkey/client` sends in bearer mode). A browser page's script never gets it unasked: its
 * requests always carry `Origin` (every POST) or Fetch Metadata, and it is served by the HttpOnly cookie, so a
 * script reading the answer (an injected one, a fetch hook) finds no token. Other clients (servers, CLIs, native
 * apps' HTTP stacks) send neither header and get it as before.
 */
export function returnsToken(c: Context): boolean {
  if (c.req.header(CREDENTIALS_HEADER)?.trim().toLowerCase() === "bearer") return true;
  return c.req.header("origin") === undefined && c.req.header("sec-fetch-site") === undefined;
}

/**
 * Answers a sign-in of any kind (password, emailed code, verification link): the session cookie plus
 * `{user, session}`, and `credentials` for a client that takes the token itself (see `returnsToken`); `extra` fields
 * join the body (the magic link's `callbackURL`), `cookies` follow the session's. A sign-in that needs its second
 * step first (`twoFactor()`) answers `{twoFactorRequired: true, expiresAt}` and the pending sign-in cookie instead
 * (see `challengeResponse`).
 *
 * @example
 * async (c, { body }) => signInResponse(c, await core.emailPassword.signIn(body, tools.meta(c)), core.config);
 */
export function signInResponse(
  c: Context,
  result: SignInOutcome,
  config: ResolvedConfig,
  extra: Record<string, unknown> = {},
  cookies: readonly CookieDescriptor[] = [],
  credentialsExtra: Record<string, unknown> = {},
): Response {
  if ("twoFactorRequired" in result) return challengeResponse(c, result, config, extra);
  const { user, session, credentials, device } = result;
  // The device cookie travels after the session cookie (the session's is the first `Set-Cookie`, as before device
  // cookies); a client that takes its tokens itself gets it as `credentials.deviceToken`, to send back as
  // `latchkey-device` (or `deviceToken` in the sign-in body).
  const withDevice = { ...credentials, ...(device ? { deviceToken: device.token } : {}), ...credentialsExtra };
  const json = JSON.stringify(
    returnsToken(c) ? { user, session, credentials: withDevice, ...extra } : { user, session, ...extra },
  );
  // The security headers and the cookie in one record when nothing else was set for the answer (see jsonAnswer).
  const answer = jsonAnswer(c, json, config, serializeCookie(result.cookie));
  if (device) answer.headers.append("set-cookie", serializeCookie(device.cookie));
  for (const cookie of cookies) answer.headers.append("set-cookie", serializeCookie(cookie));
  return answer;
}

/**
 * A sign-in stopped before its second step: no session and no user in the answer, only `twoFactorRequired`, when
 * the pending sign-in ends, and (for a client that takes tokens itself) `twoFactorToken` to send back to
 * `POST /two-factor/verify`; browsers get it as an HttpOnly cookie. The device cookie of a right password still
 * travels.
 */
function challengeResponse(
  c: Context,
  result: SecondFactorChallenge,
  config: ResolvedConfig,
  extra: Record<string, unknown>,
): Response {
  const { pending, device } = result;
  const body: Record<string, unknown> = { twoFactorRequired: true, expiresAt: pending.expiresAt, ...extra };
  if (returnsToken(c)) {
    body.twoFactorToken = pending.token;
    if (device) body.deviceToken = device.token;
  }
  const answer = jsonAnswer(c, JSON.stringify(body), config, serializeCookie(result.cookie));
  if (device) answer.headers.append("set-cookie", serializeCookie(device.cookie));
  return answer;
}
