import { z } from "@hono/zod-openapi";
import { ADMIN_PLUGIN_ID, type AdminService, type ValidatedSession } from "@latchkey/core";
import { defineRoute, type AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";
import { readCookie, serializeCookie } from "../../http/cookies.ts";
import { signInResponse } from "../../http/sign-in-response.ts";
import { EmailField, PasswordField, SignInResponseSchema, SuccessSchema, UserSchema } from "../schemas.ts";
import {
  AdminUserDetailSchema,
  AdminUserResponse,
  ListUsersQuery,
  ListUsersResponse,
  RoleField,
  TAG,
  UserIdBody,
  UserIdField,
} from "./schemas.ts";

const ADMIN_TEXT =
  "Admins only: the signed-in user's `appMetadata.role` is one of `adminRoles`, or their id is in `adminUserIds` (403 `INSUFFICIENT_PERMISSIONS` otherwise, and from an impersonation session).";

/** The signed-in admin (403 otherwise). */
function adminOf(service: AdminService, session: ValidatedSession) {
  service.assertAdmin(session.userRecord, session.sessionRecord);
  return session.userRecord;
}

function registerReads(app: AuthApp, tools: RequestTools, service: AdminService): void {
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/admin/list-users",
      operationId: "adminListUsers",
      tag: TAG,
      authenticated: true,
      globalRateLimit: false,
      summary: "List and search users",
      description: `Every user newest first, or those whose email or name starts with \`searchValue\` (case-insensitive) in that field's order; a page at a time (pass \`nextCursor\` back as \`cursor\`), the first with \`total\`, how many the whole listing has, counted no further than \`admin({ listUsersCountLimit })\` (100,000 by default; beyond it \`totalExact\` is false), and null on the pages after it: counting a million users costs more than a page. Each page is an index range on every SQL store. ${ADMIN_TEXT}`,
      query: ListUsersQuery,
      response: { schema: ListUsersResponse, description: "A page of users" },
      errors: [403],
    },
    async (c, { query, session }) => {
      adminOf(service, session);
      return c.json(await service.listUsers(query));
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "get",
      path: "/admin/get-user",
      operationId: "adminGetUser",
      tag: TAG,
      authenticated: true,
      globalRateLimit: false,
      summary: "A user with their sessions, accounts, keys and audit rows",
      description: `The user (with the ban), their live sessions, linked accounts (never tokens), API keys (never values) and latest 20 audit rows. 404 \`NOT_FOUND\`. ${ADMIN_TEXT}`,
      query: z.object({ userId: UserIdField }),
      response: { schema: AdminUserDetailSchema, description: "The user" },
      errors: [403, 404],
    },
    async (c, { query, session }) => {
      adminOf(service, session);
      return c.json(await service.getUser(query.userId));
    },
  );
}

function registerUserWrites(app: AuthApp, tools: RequestTools, service: AdminService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/admin/create-user",
      operationId: "adminCreateUser",
      tag: TAG,
      authenticated: true,
      summary: "Create a user",
      description: `Creates a user with a password, as \`auth.api.createUser\` does (the \`beforeUserCreated\` hook runs, path \`create-user\`; a taken email is 422 \`USER_ALREADY_EXISTS\`), with \`role\` (or the configured \`defaultRole\`). No session is created. ${ADMIN_TEXT}`,
      body: z.object({
        email: EmailField,
        password: PasswordField,
        name: z.string().max(256).nullable().optional(),
        emailVerified: z.boolean().optional(),
        role: RoleField.nullable().optional(),
      }),
      response: { schema: AdminUserResponse, description: "The new user" },
      errors: [403, 422],
    },
    async (c, { body, session }) => {
      const actor = adminOf(service, session);
      return c.json({ user: await service.createUser(actor, body, tools.meta(c)) });
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/admin/set-role",
      operationId: "adminSetRole",
      tag: TAG,
      authenticated: true,
      summary: "Set a user's role",
      description: `Sets \`appMetadata.role\` (a role, or a list; null removes it). The user's sessions read it at once. Emits \`UserRoleChanged\`. 404 \`NOT_FOUND\`. ${ADMIN_TEXT}`,
      body: z.object({ userId: UserIdField, role: RoleField.nullable() }),
      response: { schema: AdminUserResponse, description: "The user" },
      errors: [403, 404],
    },
    async (c, { body, session }) => {
      const actor = adminOf(service, session);
      return c.json({ user: await service.setRole(actor, body, tools.meta(c)) });
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/admin/remove-user",
      operationId: "adminRemoveUser",
      tag: TAG,
      authenticated: true,
      summary: "Remove a user",
      description: `Deletes the user with their sessions, accounts, keys and codes, as account deletion does (audit rows stay). Never an admin nor oneself (403 \`INSUFFICIENT_PERMISSIONS\`: remove the role first). Emits \`AccountDeleted\`. ${ADMIN_TEXT}`,
      body: UserIdBody,
      response: { schema: SuccessSchema, description: "Removed" },
      errors: [403, 404],
    },
    async (c, { body, session }) => {
      const actor = adminOf(service, session);
      return c.json(await service.removeUser(actor, body.userId, tools.meta(c)));
    },
  );
}

function registerBans(app: AuthApp, tools: RequestTools, service: AdminService): void {
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/admin/ban-user",
      operationId: "adminBanUser",
      tag: TAG,
      authenticated: true,
      summary: "Ban a user",
      description: `Bans the user, for \`banExpiresIn\` seconds or until unbanned: every session of theirs ends and every API key is disabled, on every instance at once (the lookup cache included); every sign-in answers 403 \`USER_BANNED\` (\`details.until\`) and no session, code or link is issued. Never an admin (403 \`CANNOT_BAN_ADMIN\`). Emits \`UserBanned\`. ${ADMIN_TEXT}`,
      body: z.object({
        userId: UserIdField,
        banReason: z.string().max(500).nullable().optional().openapi({ description: "Why (admins only see it)" }),
        banExpiresIn: z
          .number()
          .int()
          .min(1)
          .nullable()
          .optional()
          .openapi({ description: "Seconds until the ban ends; none: until unbanned" }),
      }),
      response: { schema: AdminUserResponse, description: "The banned user" },
      errors: [403, 404],
    },
    async (c, { body, session }) => {
      const actor = adminOf(service, session);
      return c.json({ user: await service.ban(actor, body, tools.meta(c)) });
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/admin/unban-user",
      operationId: "adminUnbanUser",
      tag: TAG,
      authenticated: true,
      summary: "Lift a ban",
      description: `The user may sign in again. The API keys the ban disabled stay disabled. Emits \`UserUnbanned\`. ${ADMIN_TEXT}`,
      body: UserIdBody,
      response: { schema: AdminUserResponse, description: "The user" },
      errors: [403, 404],
    },
    async (c, { body, session }) => {
      const actor = adminOf(service, session);
      return c.json({ user: await service.unban(actor, body.userId, tools.meta(c)) });
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/admin/revoke-user-sessions",
      operationId: "adminRevokeUserSessions",
      tag: TAG,
      authenticated: true,
      summary: "Sign a user out everywhere",
      description: `Revokes every session of the user, on every instance at once; \`count\` says how many. Emits \`SessionRevoked\` (\`reason: "admin"\`). ${ADMIN_TEXT}`,
      body: UserIdBody,
      response: {
        schema: z.object({ success: z.literal(true), count: z.number().int() }),
        description: "Revoked",
      },
      errors: [403, 404],
    },
    async (c, { body, session }) => {
      const actor = adminOf(service, session);
      const { count } = await service.revokeSessions(actor, body.userId, tools.meta(c));
      return c.json({ success: true as const, count });
    },
  );
}

function registerImpersonation(app: AuthApp, tools: RequestTools, service: AdminService): void {
  const { config } = tools.core;
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/admin/impersonate-user",
      rateLimit: { window: "1m", max: 10 },
      operationId: "adminImpersonateUser",
      tag: TAG,
      authenticated: true,
      summary: "Sign in as a user",
      description: `Starts a session as the user, marked \`impersonatedBy\` (the admin's id), lasting \`impersonationSessionDuration\` and never sliding: the session cookie becomes it (the admin's own token is kept in the \`admin_session\` cookie for \`/admin/stop-impersonating\`), and token clients get \`credentials\`. It cannot change the user's password, second factor, passkeys, email or account (403 \`IMPERSONATION_NOT_ALLOWED\`). Never another admin, never from an impersonation session (403 \`IMPERSONATION_NOT_ALLOWED\`); a banned user: 403 \`USER_BANNED\`. Emits \`ImpersonationStarted\`. ${ADMIN_TEXT}`,
      body: UserIdBody,
      response: { schema: SignInResponseSchema, description: "The impersonation session" },
      errors: [403, 404],
    },
    async (c, { body, session }) => {
      const actor = adminOf(service, session);
      const result = await service.impersonate(actor, session.sessionRecord, body.userId, tools.meta(c));
      const own = readCookie(c.req.header("cookie"), config.cookies.name);
      return signInResponse(c, result, config, {}, own ? [service.adminSessionCookie(own)] : []);
    },
  );
  defineRoute(
    app,
    tools,
    {
      method: "post",
      path: "/admin/stop-impersonating",
      operationId: "adminStopImpersonating",
      tag: TAG,
      authenticated: true,
      summary: "End an impersonation",
      description:
        "Ends the impersonation session this request carries (on every instance at once). When the `admin_session` cookie still holds the admin's live session, the session cookie becomes it again and the answer is `{user, session}` of the admin; otherwise `{success: true}` (token clients go back to the token they kept). 400 for a session that is not an impersonation. Emits `ImpersonationStopped`.",
      response: {
        schema: z.union([z.object({ user: UserSchema, session: z.record(z.string(), z.unknown()) }), SuccessSchema]),
        description: "Ended",
      },
    },
    async (c, { session }) => {
      const { actorId } = await service.stopImpersonating(session.sessionRecord, tools.meta(c));
      const kept = readCookie(c.req.header("cookie"), service.adminSessionCookie(null).name);
      const restored = await service.restoreAdmin(kept, actorId);
      c.header("set-cookie", serializeCookie(service.adminSessionCookie(null)), { append: true });
      if (!restored) {
        c.header("set-cookie", serializeCookie(tools.core.ctx.sessions.clearCookie()), { append: true });
        return c.json({ success: true as const });
      }
      c.header("set-cookie", serializeCookie(restored.cookie), { append: true });
      return c.json({ user: restored.user, session: restored.session });
    },
  );
}

/**
 * Registers the admin endpoints when `admin()` is installed (else they answer 404).
 *
 * @example
 * registerAdminRoutes(app, tools); // listed in FEATURE_ROUTES
 */
export function registerAdminRoutes(app: AuthApp, tools: RequestTools): void {
  const feature = tools.core.plugins.get(ADMIN_PLUGIN_ID);
  if (!feature) return;
  registerReads(app, tools, feature.service);
  registerUserWrites(app, tools, feature.service);
  registerBans(app, tools, feature.service);
  registerImpersonation(app, tools, feature.service);
}
