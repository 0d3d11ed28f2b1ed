import { z } from "@hono/zod-openapi";
import { EMAIL_OTP_PLUGIN_ID, SEND_PURPOSES, type EmailOtpService, type ResolvedEmailOtpOptions } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { signInResponse } from "../../http/sign-in-response.ts";
import { jsonAnswer } from "../../middleware/security-headers.ts";
import {
  EmailField,
  PasswordField,
  RememberMeField,
  SignInResponseSchema,
  signInAnswer,
  SuccessSchema,
  UserResponseSchema,
} from "../schemas.ts";
import { registerEmailChangeRoutes } from "./email-change.ts";

const TAG = "Email OTP";

/**
 * A code field: exactly `length` ASCII digits (letters, other lengths and non-strings are 400 INVALID_REQUEST).
 *
 * @example
 * z.object({ email: EmailField, otp: otpField(6) });
 */
function otpField(length: number) {
  return z
    .string()
    .length(length)
    .regex(/^[0-9]+$/, "digits only")
    .openapi({ description: `${length} digits`, example: "042917".padStart(length, "0").slice(-length) });
}

const PurposeField = z
  .enum(SEND_PURPOSES)
  .openapi({ description: "What the code is for; a code only works for its own purpose." });

function registerSendVerificationOtp(
  app: AuthApp,
  tools: RequestTools,
  service: EmailOtpService,
  options: ResolvedEmailOtpOptions,
): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/email-otp/send-verification-otp",
      sendsEmail: true,
      rateLimit: { window: "1m", max: 3 },
      operationId: "sendVerificationOtp",
      tag: TAG,
      rejectNavigation: true,
      summary: "Email a one-time code",
      description: `\`{success: true}\`, with the same status and body whether or not the email is registered (the email limits below, too, answer alike). Issues a new code (earlier codes for the same email and purpose stop working) and emails it. Only users get \`email-verification\` and \`password-reset\` codes; \`sign-in\` codes go to anyone${options.allowSignUp ? "" : " registered (sign-up is off)"}.`,
      body: z.object({ email: EmailField, purpose: PurposeField }),
      response: { schema: SuccessSchema, description: "Accepted" },
    },
    async (c, { body }) => jsonAnswer(c, JSON.stringify(await service.send(body, tools.meta(c))), tools.core.config),
  );
}

function registerCheckVerificationOtp(
  app: AuthApp,
  tools: RequestTools,
  service: EmailOtpService,
  otp: ReturnType<typeof otpField>,
  rules: string,
): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/email-otp/check-verification-otp",
      rateLimit: { window: "1m", max: 10 },
      operationId: "checkVerificationOtp",
      tag: TAG,
      summary: "Check a code without using it",
      description: `\`{success: true}\` when the code is right; the code stays valid. A wrong code still counts against the code's tries (not against the account lockout). ${rules}`,
      body: z.object({ email: EmailField, purpose: PurposeField, otp }),
      response: { schema: SuccessSchema, description: "The code is right" },
      errors: [403],
    },
    async (c, { body }) => c.json(await service.check(body, tools.meta(c))),
  );
}

function registerSignInEmailOtp(
  app: AuthApp,
  tools: RequestTools,
  service: EmailOtpService,
  options: ResolvedEmailOtpOptions,
  otp: ReturnType<typeof otpField>,
  rules: string,
): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/sign-in/email-otp",
      rateLimit: { window: "1m", max: 10 },
      operationId: "signInEmailOtp",
      tag: TAG,
      rejectNavigation: true,
      summary: "Sign in with an emailed code",
      description: `Uses a \`sign-in\` code and sets a fresh session cookie. ${options.allowSignUp ? "An unknown email becomes a new user (email verified, `name` from the body)." : "Unknown emails are 401 `INVALID_CREDENTIALS` (sign-up is off)."} An existing unverified user loses every account and session made before this proof of the mailbox. Wrong codes count towards the account lockout (429 \`ACCOUNT_LOCKED\`). ${rules}`,
      body: z.object({ email: EmailField, otp, name: z.string().max(256).nullish(), rememberMe: RememberMeField }),
      response: {
        schema: signInAnswer(tools.core, SignInResponseSchema),
        description: "Signed in; sets the session cookie",
      },
      errors: [401, 403],
    },
    async (c, { body }) => signInResponse(c, await service.signIn(body, tools.meta(c)), tools.core.config),
  );
}

function registerVerifyEmailOtp(
  app: AuthApp,
  tools: RequestTools,
  service: EmailOtpService,
  otp: ReturnType<typeof otpField>,
  rules: string,
): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/email-otp/verify-email",
      rateLimit: { window: "1m", max: 10 },
      operationId: "verifyEmailOtp",
      tag: TAG,
      summary: "Verify the email with a code",
      description: `Uses an \`email-verification\` code and sets \`emailVerified\`. Sent with a session of that same user (cookie or Bearer), the password, API keys and the current session are kept and only the user's other sessions are revoked. Otherwise, for a user not verified before, accounts, sessions and API keys made before this proof are removed (a password set by whoever registered the address stops working). Wrong codes count towards the account lockout. ${rules}`,
      body: z.object({ email: EmailField, otp }),
      response: { schema: UserResponseSchema, description: "Verified" },
      errors: [403],
    },
    async (c, { body }) => {
      const s = await tools.session(c);
      return c.json(
        await service.verifyEmail(body, tools.meta(c), s ? { userId: s.user.id, sessionId: s.session.id } : null),
      );
    },
  );
}

function registerRequestPasswordResetOtp(app: AuthApp, tools: RequestTools, service: EmailOtpService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/email-otp/request-password-reset",
      sendsEmail: true,
      rateLimit: { window: "1m", max: 3 },
      operationId: "requestPasswordResetOtp",
      tag: TAG,
      rejectNavigation: true,
      summary: "Email a password-reset code",
      description:
        "`{success: true}` whether or not the email is registered (the email limits below, too, answer alike); only registered emails receive a `password-reset` code.",
      body: z.object({ email: EmailField }),
      response: { schema: SuccessSchema, description: "Accepted" },
    },
    async (c, { body }) => c.json(await service.requestPasswordReset(body, tools.meta(c))),
  );
}

function registerResetPasswordOtp(
  app: AuthApp,
  tools: RequestTools,
  service: EmailOtpService,
  otp: ReturnType<typeof otpField>,
  rules: string,
): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/email-otp/reset-password",
      rateLimit: { window: "1m", max: 10 },
      operationId: "resetPasswordOtp",
      tag: TAG,
      summary: "Set a new password with a code",
      description: `Uses a \`password-reset\` code, sets the password (creating the password account if there was none), marks the email verified and signs the user out everywhere. Wrong codes count towards the account lockout. ${rules}`,
      body: z.object({ email: EmailField, otp, password: PasswordField }),
      response: { schema: SuccessSchema, description: "Password set" },
      errors: [403],
    },
    async (c, { body }) => c.json(await service.resetPassword(body, tools.meta(c))),
  );
}

/**
 * Registers the email OTP endpoints when `emailOtp()` is installed (else they answer 404).
 *
 * @example
 * registerEmailOtpRoutes(app, tools); // listed in FEATURE_ROUTES
 */
export function registerEmailOtpRoutes(app: AuthApp, tools: RequestTools): void {
  const feature = tools.core.plugins.get(EMAIL_OTP_PLUGIN_ID);
  if (!feature) return;
  const { service, options } = feature;
  const otp = otpField(options.codeLength);
  const minutes = Math.max(1, Math.round(options.expiresInMs / 60_000));
  const rules = `Codes have ${options.codeLength} digits, live ${minutes} minutes and die after ${options.maxAttempts} wrong tries (403 \`TOO_MANY_ATTEMPTS\`; request a new one). Wrong: 400 \`INVALID_OTP\`; expired: 400 \`OTP_EXPIRED\`.`;
  registerSendVerificationOtp(app, tools, service, options);
  registerCheckVerificationOtp(app, tools, service, otp, rules);
  registerSignInEmailOtp(app, tools, service, options, otp, rules);
  registerVerifyEmailOtp(app, tools, service, otp, rules);
  registerRequestPasswordResetOtp(app, tools, service);
  registerResetPasswordOtp(app, tools, service, otp, rules);
  if (options.emailChange.enabled) registerEmailChangeRoutes(app, tools, feature, otp);
}
