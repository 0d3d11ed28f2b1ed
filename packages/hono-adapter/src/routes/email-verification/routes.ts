import { z } from "@hono/zod-openapi";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { signInResponse } from "../../http/sign-in-response.ts";
import { EmailField, SignInResponseSchema, signInAnswer, SuccessSchema } from "../schemas.ts";

const TAG = "Email verification";

/** The link-token verification flow (core feature: always on). */
export function registerEmailVerificationRoutes(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/send-verification-email",
      sendsEmail: true,
      rateLimit: { window: "1m", max: 3 },
      operationId: "sendVerificationEmail",
      tag: TAG,
      rejectNavigation: true,
      summary: "Email a verification link",
      description:
        "`{success: true}`: unknown and already verified addresses get no email, and nothing in the answer tells them apart (the email limits below, too, answer alike). A registered, unverified user gets a single-use token (earlier ones die) rendered into the `verification.html` and `verification.txt` templates as a link to `callbackUrl` (a path on `baseUrl` or a URL on a trusted origin, else 400 `INVALID_CALLBACK_URL`), or by default `emailVerification.callbackUrlOverride` / `baseUrl` + `emailVerification.callbackPath`, with `?token=&email=`.",
      body: z.object({ email: EmailField, callbackUrl: z.string().max(2048).nullish() }),
      response: { schema: SuccessSchema, description: "Accepted" },
    },
    async (c, { body }) => c.json(await core.emailVerification.send(body, tools.meta(c))),
  );

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/verify-email",
      rateLimit: { window: "1m", max: 10 },
      operationId: "verifyEmail",
      tag: TAG,
      rejectNavigation: true,
      summary: "Verify the email with the emailed token and sign in",
      description:
        "Consumes the single-use token (400 `INVALID_TOKEN` when unknown, used, expired or issued for another address), sets `emailVerified` and signs in: a fresh session and cookie, like a sign-in. For a user not verified before, the link is the first proof of the mailbox: accounts (a password), sessions and API keys made before it are removed, unless the request carries a session of that same user (cookie or Bearer; then only the user's other sessions are revoked). Failures count towards the account's lockout (429 `ACCOUNT_LOCKED`).",
      body: z.object({ email: EmailField, token: z.string().max(256) }),
      response: {
        schema: signInAnswer(core, SignInResponseSchema),
        description: "Verified and signed in; sets the session cookie",
      },
    },
    async (c, { body }) => {
      const s = await tools.session(c);
      const signedInAs = s ? { userId: s.user.id, sessionId: s.session.id } : null;
      return signInResponse(c, await core.emailVerification.verify(body, tools.meta(c), signedInAs), core.config);
    },
  );
}
