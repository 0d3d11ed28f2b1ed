import { z } from "@hono/zod-openapi";
import type { TwoFactorService, TwoFactorSignInResult } from "@latchkey/core";
import type { Context } from "hono";
import { readCookie, TWO_FACTOR_HEADER } from "../../http/cookies.ts";
import { signInResponse } from "../../http/sign-in-response.ts";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { SignInResponseSchema } from "../schemas.ts";

const TAG = "Two-factor";

const TokenField = z.string().max(256).optional().openapi({
  description:
    "The pending sign-in's token (`twoFactorToken` of the first step's answer) for clients that keep tokens themselves; browsers send the HttpOnly pending sign-in cookie instead (the `latchkey-two-factor` header works too).",
});

const LIFE_TEXT =
  "Finishes a sign-in that answered `{twoFactorRequired: true}`: the pending sign-in (its cookie, `twoFactorToken` or the `latchkey-two-factor` header) lives 5 minutes, is spent by the first right code (of two requests exactly one gets a session) and dies after its wrong guesses. A wrong code is 400 `INVALID_TWO_FACTOR_CODE`, counted by the account's second-factor lockout (429 `ACCOUNT_LOCKED` past `lockout.maxFailures`, for every pending sign-in of the account). An unknown, spent, expired or exhausted pending sign-in, or one whose account changed its password or switched two-factor off meanwhile: 401 `INVALID_TWO_FACTOR_SIGN_IN` (sign in again).";

/** The pending sign-in token a request carries: the header, the body field, or the cookie. */
function pendingTokenOf(c: Context, body: { twoFactorToken?: string }, cookieName: string): string {
  return (
    c.req.header(TWO_FACTOR_HEADER)?.trim() ||
    body.twoFactorToken ||
    readCookie(c.req.header("cookie"), cookieName) ||
    ""
  );
}

/** The session answer of a finished second step: the session, the pending cookie cleared, the trust if asked. */
function finished(c: Context, tools: RequestTools, result: TwoFactorSignInResult): Response {
  const { trustedDevice } = result;
  const cookies = trustedDevice ? [result.pendingCookie, trustedDevice.cookie] : [result.pendingCookie];
  const credentials = trustedDevice ? { trustedDeviceToken: trustedDevice.token } : {};
  return signInResponse(c, result, tools.core.config, {}, cookies, credentials);
}

function registerVerify(app: AuthApp, tools: RequestTools, service: TwoFactorService): void {
  const trustFor = service.options.trustDeviceForMs;
  const trustText =
    trustFor === null
      ? "`trustDevice` is ignored: `trustDeviceFor` is off."
      : `\`trustDevice: true\` sets a trusted-device cookie (\`credentials.trustedDeviceToken\` for clients that keep tokens, sent back as the \`latchkey-trusted-device\` header): sign-ins of this account from this device skip the second step for ${Math.round(trustFor / 86_400_000)} days, until the user signs out everywhere, changes or resets the password, or switches two-factor off.`;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/two-factor/verify",
      rateLimit: { window: "1m", max: 10 },
      operationId: "verifyTwoFactor",
      tag: TAG,
      rejectNavigation: true,
      summary: "Finish a sign-in with an authenticator code",
      description: `${LIFE_TEXT} No code of an accepted time step (or an earlier one) is accepted again. ${trustText}`,
      body: z.object({
        code: z
          .string()
          .max(64)
          .openapi({ description: "A current code of the authenticator app.", example: "287082" }),
        trustDevice: z.boolean().optional(),
        twoFactorToken: TokenField,
      }),
      response: { schema: SignInResponseSchema, description: "Signed in; sets the session cookie" },
      errors: [401],
    },
    async (c, { body }) => {
      const token = pendingTokenOf(c, body, service.signIn.pendingCookieName);
      const input = { token, code: body.code, trustDevice: body.trustDevice === true };
      return finished(c, tools, await service.signIn.finish(input, "totp", tools.meta(c)));
    },
  );
}

function registerVerifyRecoveryCode(app: AuthApp, tools: RequestTools, service: TwoFactorService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/two-factor/verify-recovery-code",
      rateLimit: { window: "1m", max: 10 },
      operationId: "verifyTwoFactorRecoveryCode",
      tag: TAG,
      rejectNavigation: true,
      summary: "Finish a sign-in with a recovery code",
      description: `${LIFE_TEXT} The recovery code is single-use (of two requests with it exactly one succeeds); emits \`RecoveryCodeUsed\` with how many are left. A recovery code never makes the device trusted.`,
      body: z.object({
        code: z
          .string()
          .max(64)
          .openapi({ description: "An unused recovery code (`xxxxx-xxxxx`).", example: "k7m2p-9qrst" }),
        twoFactorToken: TokenField,
      }),
      response: { schema: SignInResponseSchema, description: "Signed in; sets the session cookie" },
      errors: [401],
    },
    async (c, { body }) => {
      const token = pendingTokenOf(c, body, service.signIn.pendingCookieName);
      return finished(
        c,
        tools,
        await service.signIn.finish({ token, code: body.code }, "recovery-code", tools.meta(c)),
      );
    },
  );
}

/**
 * Registers the second sign-in step: `POST /two-factor/verify` and `/two-factor/verify-recovery-code`.
 *
 * @example
 * registerTwoFactorSignInRoutes(app, tools, feature.service);
 */
export function registerTwoFactorSignInRoutes(app: AuthApp, tools: RequestTools, service: TwoFactorService): void {
  registerVerify(app, tools, service);
  registerVerifyRecoveryCode(app, tools, service);
}
