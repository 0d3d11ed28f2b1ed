import { z } from "@hono/zod-openapi";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { EmailField, PasswordField, SuccessSchema } from "../schemas.ts";

/** The OpenAPI tag of every route of this folder. */
export const TAG = "Email and password";

function registerChangePassword(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/change-password",
      rateLimit: { window: "1m", max: 10 },
      operationId: "changePassword",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Change the password",
      description:
        "Needs the current password (401 `INVALID_PASSWORD` when wrong; failures count towards the lockout). `revokeOtherSessions` signs out every other session. The new password must pass `emailPassword.passwordPolicy` (400 `WEAK_PASSWORD`, `PASSWORD_COMPROMISED`).",
      body: z.object({
        currentPassword: PasswordField,
        newPassword: PasswordField,
        revokeOtherSessions: z.boolean().optional(),
      }),
      response: { schema: SuccessSchema, description: "Changed" },
    },
    async (c, { body, session: s }) => {
      await core.emailPassword.changePassword(s, body, tools.meta(c));
      return c.json({ success: true as const });
    },
  );
}

function registerRequestPasswordReset(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/request-password-reset",
      sendsEmail: true,
      rateLimit: { window: "1m", max: 3 },
      operationId: "requestPasswordReset",
      tag: TAG,
      rejectNavigation: true,
      summary: "Email a password-reset link",
      description:
        "`{success: true}` whether or not the email is registered (the email limits below, too, answer alike). `redirectTo` must be a path or a trusted origin (400 `INVALID_CALLBACK_URL`); the token is appended as `?token=`.",
      body: z.object({ email: EmailField, redirectTo: z.string().max(2048).nullish() }),
      response: { schema: SuccessSchema, description: "Accepted" },
    },
    async (c, { body }) => c.json(await core.emailPassword.requestPasswordReset(body, tools.meta(c))),
  );
}

function registerResetPassword(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/reset-password",
      rateLimit: { window: "1m", max: 10 },
      operationId: "resetPassword",
      tag: TAG,
      summary: "Set a new password with an emailed token",
      description:
        "Consumes the single-use token (400 `INVALID_TOKEN` when unknown, used or expired), sets the password and revokes every session of the user. The link proves the mailbox: the email becomes verified, and for a user not verified before, other accounts and API keys made before this proof are removed. The token is spent only when the writes succeed (a failed attempt leaves it usable). The new password must pass `emailPassword.passwordPolicy` (400 `WEAK_PASSWORD`, `PASSWORD_COMPROMISED`).",
      body: z.object({ token: z.string().max(256), newPassword: PasswordField }),
      response: { schema: SuccessSchema, description: "Password set" },
    },
    async (c, { body }) => c.json(await core.emailPassword.resetPassword(body, tools.meta(c))),
  );
}

/** The password of an existing account: change it, or reset it by emailed link (registered in this order). */
export function registerPasswordRoutes(app: AuthApp, tools: RequestTools): void {
  registerChangePassword(app, tools);
  registerRequestPasswordReset(app, tools);
  registerResetPassword(app, tools);
}
