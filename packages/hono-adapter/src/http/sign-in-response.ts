import type { Context } from "hono";
import type { ResolvedConfig, SignInResult } from "@latchkey/core";
import { serializeCookie } from "./cookies.ts";
import { jsonAnswer } from "../middleware/security.ts";

/** The request header a Bearer client sends to receive the session token in sign-in answers. */
const CREDENTIALS_HEADER = "latchkey-credentials";

/**
 * Whether a sign-in answer may carry `credentials.token`. A Bearer client asks for it (`latchkey-credentials:
 * bearer`, which `@latchkey/client` sends in bearer mode). A browser page's script never gets it unasked: its
 * requests always carry `Origin` (every POST) or Fetch Metadata, and it is served by the HttpOnly cookie, so a
 * script reading the answer (an injected one, a fetch hook) finds no token. Other clients (servers, CLIs, native
 * apps' HTTP stacks) send neither header and get it as before.
 */
function returnsToken(c: Context): boolean {
  if (c.req.header(CREDENTIALS_HEADER)?.trim().toLowerCase() === "bearer") return true;
  return c.req.header("origin") === undefined && c.req.header("sec-fetch-site") === undefined;
}

/**
 * Answers a sign-in of any kind (password, emailed code, verification link): the session cookie plus
 * `{user, session}`, and `credentials` for a client that takes the token itself (see `returnsToken`); `extra` fields
 * join the body (the magic link's `callbackURL`).
 *
 * @example
 * async (c, { body }) => signInResponse(c, await core.emailPassword.signIn(body, tools.meta(c)), core.config);
 */
export function signInResponse(
  c: Context,
  result: SignInResult,
  config: ResolvedConfig,
  extra: Record<string, unknown> = {},
): Response {
  const { user, session, credentials, device } = result;
  // The device cookie travels after the session cookie (the session's is the first `Set-Cookie`, as before device
  // cookies); a client that takes its tokens itself gets it as `credentials.deviceToken`, to send back as
  // `latchkey-device` (or `deviceToken` in the sign-in body).
  const withDevice = device ? { ...credentials, deviceToken: device.token } : credentials;
  const json = JSON.stringify(
    returnsToken(c) ? { user, session, credentials: withDevice, ...extra } : { user, session, ...extra },
  );
  // The security headers and the cookie in one record when nothing else was set for the answer (see jsonAnswer).
  const answer = jsonAnswer(c, json, config, serializeCookie(result.cookie));
  if (device) answer.headers.append("set-cookie", serializeCookie(device.cookie));
  return answer;
}
