import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { defineRoute, type AuthApp } from "../define.ts";
import { setCookie } from "../../http/cookies.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { PasswordField, SuccessSchema, UserResponseSchema } from "../schemas.ts";

const TAG = "Account";

/** Answers a deletion: the session cookie is cleared whatever carried the request. */
function deletedResponse(c: Context, tools: RequestTools): Response {
  setCookie(c, tools.core.ctx.sessions.clearCookie());
  return c.json({ success: true as const });
}

function registerUpdateUser(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "patch",
      path: "/user",
      operationId: "updateUser",
      tag: TAG,
      authenticated: true,
      ownSessionOnly: true,
      summary: "Update the profile",
      description:
        "Changes `name` and `image` (a string, or null to clear), `metadata` (the user's own data, so never a place for roles: replaces the stored object; `{}` clears it) and `username` (only with `emailPassword.allowUsernameChange`, else 403 `USERNAME_CHANGE_DISABLED`; a taken name is 409 `USERNAME_TAKEN`). Omitted fields are kept. `appMetadata` is server-only (400 `SERVER_ONLY_PROPERTY`; use `auth.api.updateUser`). Any other field (email, emailVerified, id, password) is ignored and never written: the email changes only through the email-change flow.",
      body: z.object({
        name: z.string().max(256).nullable().optional(),
        image: z.string().max(2048).nullable().optional(),
        metadata: z
          .record(z.string(), z.unknown())
          .optional()
          .openapi({ description: "Replaces the stored object (user-controlled)", example: { theme: "dark" } }),
        appMetadata: z
          .unknown()
          .optional()
          .openapi({ description: "Server-only: always 400 `SERVER_ONLY_PROPERTY` here (use `auth.api.updateUser`)" }),
        username: z.string().max(64).optional().openapi({ description: "Not nullable: a username cannot be cleared" }),
      }),
      response: { schema: UserResponseSchema, description: "The updated user" },
      errors: [400, 403, 409],
    },
    async (c, { body, session: s }) => {
      const input = { ...body, appMetadata: body.appMetadata as Record<string, unknown> | undefined };
      return c.json({ user: await core.account.updateUser(s.userRecord, input, tools.meta(c)) });
    },
  );
}

function registerSetPassword(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/set-password",
      rateLimit: { window: "1m", max: 10 },
      operationId: "setPassword",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Add a password to an account without one",
      description:
        "For accounts created without a password (e.g. by email OTP sign-in). 409 `PASSWORD_ALREADY_SET` when the account has one (use change-password); decided atomically. Every other session of the user is revoked; the current one is kept.",
      body: z.object({ newPassword: PasswordField }),
      response: { schema: SuccessSchema, description: "Password added" },
      errors: [409],
    },
    async (c, { body, session: s }) => {
      return c.json(await core.account.setPassword(s, body.newPassword, tools.meta(c)));
    },
  );
}

function registerVerifyPassword(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/verify-password",
      rateLimit: { window: "1m", max: 10 },
      operationId: "verifyPassword",
      tag: TAG,
      authenticated: true,
      summary: "Check the current password",
      description:
        "`{valid: true}` for the right password; a wrong one is 401 `INVALID_PASSWORD`. Failures count towards the same lockout as sign-in (429 `ACCOUNT_LOCKED`).",
      body: z.object({ password: PasswordField }),
      response: {
        schema: z.object({ valid: z.literal(true) }).openapi("PasswordValid"),
        description: "The password is right",
      },
    },
    async (c, { body, session: s }) => {
      return c.json(await core.account.verifyPassword(s.userRecord, body.password, tools.meta(c)));
    },
  );
}

function registerDeleteAccount(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/delete-account",
      rateLimit: { window: "1m", max: 10 },
      operationId: "deleteAccount",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Delete the account with the password",
      description:
        "Verifies the password (401 `INVALID_PASSWORD`, counted by the lockout) and deletes the user with its sessions, accounts, API keys and pending tokens. Audit rows stay. Clears the session cookie. Accounts without a password use `/delete-account/request`.",
      body: z.object({ password: PasswordField }),
      response: { schema: SuccessSchema, description: "Deleted; the cookie is cleared" },
    },
    async (c, { body, session: s }) => {
      await core.accountDeletion.deleteWithPassword(s.userRecord, body.password, tools.meta(c));
      return deletedResponse(c, tools);
    },
  );
}

function registerRequestAccountDeletion(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/delete-account/request",
      sendsEmail: true,
      rateLimit: { window: "1m", max: 3 },
      operationId: "requestAccountDeletion",
      tag: TAG,
      authenticated: true,
      fresh: true,
      summary: "Email a deletion confirmation link",
      description:
        "Emails a single-use token to the account's current address (subject `deleteAccount.subject`), as a link to `deleteAccount.callbackUrlOverride` or `baseUrl` + `deleteAccount.callbackPath` with `?token=`. The token lives `deleteAccount.expiresIn`; a new request invalidates the previous one.",
      response: { schema: SuccessSchema, description: "The email was sent" },
    },
    async (c, { session: s }) => {
      return c.json(await core.accountDeletion.request(s.userRecord, tools.meta(c)));
    },
  );
}

function registerConfirmAccountDeletion(app: AuthApp, tools: RequestTools): void {
  const { core } = tools;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/delete-account/confirm",
      rateLimit: { window: "1m", max: 10 },
      operationId: "confirmAccountDeletion",
      tag: TAG,
      summary: "Delete the account with the emailed token",
      description:
        "The token alone suffices: it proves access to the mailbox, so the link also works in a browser that is not signed in. When the request does carry a session, the token must have been issued to that same user (else 400 `INVALID_TOKEN`, and the token stays usable). Unknown, used or expired tokens are 400 `INVALID_TOKEN`. Clears the session cookie.",
      body: z.object({ token: z.string().max(256) }),
      response: { schema: SuccessSchema, description: "Deleted; the cookie is cleared" },
    },
    async (c, { body }) => {
      const s = await tools.session(c);
      await core.accountDeletion.confirm(body.token, s?.userRecord.id ?? null, tools.meta(c));
      return deletedResponse(c, tools);
    },
  );
}

/** PATCH /user, set-password, verify-password and the three deletion endpoints (core features: always on). */
export function registerAccountRoutes(app: AuthApp, tools: RequestTools): void {
  registerUpdateUser(app, tools);
  registerSetPassword(app, tools);
  registerVerifyPassword(app, tools);
  registerDeleteAccount(app, tools);
  registerRequestAccountDeletion(app, tools);
  registerConfirmAccountDeletion(app, tools);
}
