import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";
import { orServerCall, type RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import { AccountDeletionService } from "../account/index.ts";
import { EmailPasswordService } from "../email-password/index.ts";
import { EmailVerificationService } from "../email-verification/index.ts";
import { AuthError } from "../errors/errors.ts";
import { resolveAdminOptions, type AdminOptions, type ResolvedAdminOptions } from "./options.ts";
import { AdminService } from "./admin.ts";
import type { AdminUserDetail, AdminUserView, BanUserInput, ListUsersInput, ListUsersResult } from "./view.ts";

/**
 * `auth.api` operations of `admin()` (trusted server calls: no admin check, `actorId` names who acts in events).
 *
 * @example
 * await auth.api.banUser({ userId, banReason: "spam", actorId: "system" });
 */
export interface AdminApi {
  listUsers(input: ListUsersInput): Promise<ListUsersResult>;
  getUser(input: { userId: string }): Promise<AdminUserDetail>;
  setRole(
    input: { userId: string; role: string | string[] | null; actorId?: string },
    meta?: RequestMeta,
  ): Promise<AdminUserView>;
  banUser(input: BanUserInput & { actorId?: string }, meta?: RequestMeta): Promise<AdminUserView>;
  unbanUser(input: { userId: string; actorId?: string }, meta?: RequestMeta): Promise<AdminUserView>;
  revokeUserSessions(input: { userId: string; actorId?: string }, meta?: RequestMeta): Promise<{ count: number }>;
  /** Whether the user is an admin (`adminRoles`, `adminUserIds`). */
  isAdmin(input: { userId: string }): Promise<boolean>;
}

/**
 * What `admin()` installs: `core.plugins.get(ADMIN_PLUGIN_ID)`.
 *
 * @example
 * const { service } = auth.core.plugins.get(ADMIN_PLUGIN_ID)!;
 */
export type AdminInstalled = InstalledPlugin<AdminService, AdminApi, ResolvedAdminOptions>;

/**
 * The id `admin()` installs under, typed with what it installs.
 *
 * @example
 * const feature = auth.core.plugins.get(ADMIN_PLUGIN_ID);
 */
export const ADMIN_PLUGIN_ID = "admin" as PluginId<"admin", AdminInstalled>;

/**
 * `admin()` needs no port of its own: the ban lives on the user row, impersonation on the session row.
 *
 * @example
 * const plugin: AdminPlugin = admin({ adminUserIds: ["usr_1"] });
 */
export type AdminPlugin = AuthPlugin<"admin", AdminInstalled, never>;

/** The actor of a trusted server call: the id given, or `"server"`. */
const actorOf = (actorId: string | undefined) => ({ id: actorId ?? "server" }) as UserRecord;

/**
 * The admin API: `GET /admin/list-users`, `GET /admin/get-user`, `POST /admin/create-user`, `/admin/set-role`,
 * `/admin/ban-user`, `/admin/unban-user`, `/admin/revoke-user-sessions`, `/admin/remove-user`,
 * `/admin/impersonate-user`, `/admin/stop-impersonating`. Authority comes only from the user's server-written
 * `appMetadata.role` (in `adminRoles`) or `adminUserIds`. Options are validated here (AuthConfigError
 * `admin.<field>`).
 *
 * @example
 * import { admin } from "@latchkey/core";
 * createAuth({ secret, database, baseUrl, plugins: [admin({ adminUserIds: [process.env.FIRST_ADMIN_ID!] })] });
 */
export function admin(options: AdminOptions = {}): AdminPlugin {
  const resolved = resolveAdminOptions(options);
  return {
    id: ADMIN_PLUGIN_ID,
    requires: [],
    init(ctx) {
      const emailPassword = new EmailPasswordService(ctx, new EmailVerificationService(ctx));
      const deletion = new AccountDeletionService(ctx, emailPassword);
      const service = new AdminService(ctx, resolved, {
        createUser: (input, meta) => emailPassword.createUser(input, meta),
        removeUser: (user, meta) => deletion.remove(user, meta),
      });
      const api: AdminApi = {
        listUsers: (input) => service.listUsers(input),
        getUser: ({ userId }) => service.getUser(userId),
        setRole: ({ actorId, ...input }, meta) => service.setRole(actorOf(actorId), input, orServerCall(meta)),
        banUser: ({ actorId, ...input }, meta) => service.ban(actorOf(actorId), input, orServerCall(meta)),
        unbanUser: ({ actorId, userId }, meta) => service.unban(actorOf(actorId), userId, orServerCall(meta)),
        revokeUserSessions: ({ actorId, userId }, meta) =>
          service.revokeSessions(actorOf(actorId), userId, orServerCall(meta)),
        async isAdmin({ userId }) {
          const user = await ctx.store.users.findById(userId);
          if (!user) throw new AuthError("NOT_FOUND", "No such user");
          return service.isAdmin(user);
        },
      };
      return { service, api, options: resolved };
    },
  };
}
