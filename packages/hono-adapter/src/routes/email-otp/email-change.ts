import { z } from "@hono/zod-openapi";
import type { EmailOtpFeature } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { EmailField, SuccessSchema, UserResponseSchema } from "../schemas.ts";

const TAG = "Email OTP";

/**
 * `request-email-change` and `change-email`; registered only with `emailOtp({ emailChange: { enabled: true } })`.
 *
 * @example
 * if (feature.options.emailChange.enabled) registerEmailChangeRoutes(app, tools, feature, otpField(6));
 */
export function registerEmailChangeRoutes(
  app: AuthApp,
  tools: RequestTools,
  feature: EmailOtpFeature,
  otp: z.ZodType<string>,
): void {
  const {
    service: { emailChange },
    options,
  } = feature;
  const current = options.emailChange.verifyCurrentEmail;

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/email-otp/request-email-change",
      sendsEmail: true,
      rateLimit: { window: "1m", max: 3 },
      operationId: "requestEmailChange",
      tag: TAG,
      authenticated: true,
      fresh: true,
      rejectNavigation: true,
      summary: "Email a code to a new address",
      description: `Sends an \`email-change\` code to \`newEmail\` (one pending change per user; a new request replaces it). \`{success: true}\` (or the email limits' 429, alike): an address that belongs to another account gets nothing, and \`change-email\` then fails. ${current ? "`otpForCurrent` is required: an `email-verification` code sent to the current email (it is used up; wrong codes count towards the lockout)." : "`otpForCurrent` is ignored (`emailChange.verifyCurrentEmail` is off)."}`,
      body: z.object({ newEmail: EmailField, otpForCurrent: otp.nullish() }),
      response: { schema: SuccessSchema, description: "Accepted" },
      errors: current ? [403] : [],
    },
    async (c, { body, session: s }) => {
      return c.json(await emailChange.request(s.userRecord, body, tools.meta(c)));
    },
  );

  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/email-otp/change-email",
      rateLimit: { window: "1m", max: 10 },
      operationId: "changeEmail",
      tag: TAG,
      authenticated: true,
      summary: "Change the email with the code sent to the new address",
      description:
        'Uses the code sent to `newEmail` for this user, then sets the email (verified). Everything bound to the old address goes with it: pending password-reset, delete-account and verification links and every code of the user die, the user\'s other sessions are revoked (this one is kept) and the old address gets an "email changed" notice. 409 `EMAIL_TAKEN` when the address was taken meanwhile. Wrong codes count towards the lockout of the signed-in account. Wrong: 400 `INVALID_OTP`; expired: 400 `OTP_EXPIRED`; too many tries: 403 `TOO_MANY_ATTEMPTS`.',
      body: z.object({ newEmail: EmailField, otp }),
      response: { schema: UserResponseSchema, description: "Email changed" },
      errors: [403, 409],
    },
    async (c, { body, session: s }) => {
      return c.json(await emailChange.change(s.userRecord, body, tools.meta(c), s.session.id));
    },
  );
}
