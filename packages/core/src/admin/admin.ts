import { AuthError, invalidField } from "../errors/errors.ts";
import { emit } from "../kernel/emit.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { SessionRecord, UserRecord } from "../ports/records.ts";
import type { CookieDescriptor, SessionView, SignInResult, UserView } from "../session/session.ts";
import { endImpersonationsBy } from "../account/index.ts";
import { applyBan } from "./ban.ts";
import { listUsers, userDetail } from "./reads.ts";
import {
  roleValue,
  toAdminUserView,
  type AdminAccountOps,
  type AdminUserDetail,
  type AdminUserView,
  type BanUserInput,
  type ListUsersInput,
  type ListUsersResult,
} from "./view.ts";
import type { ResolvedAdminOptions } from "./options.ts";
import { findUser, isAdminUser, userNotFound } from "./authority.ts";
import { adminSessionCookie, impersonateUser, restoreAdmin, stopImpersonating } from "./impersonation.ts";

/** The longest ban: 100 years (a date past it would not round-trip every store). */
const MAX_BAN_SECONDS = 100 * 365 * 86_400;

/**
 * The admin API (`admin()`): authority comes only from server-written data (`appMetadata.role` in `adminRoles`, or
 * the user's id in `adminUserIds`). A ban writes the flag first and revokes second (every session, every key), so
 * a sign-in racing it either sees the ban or has its session revoked by it; the stores refuse a banned user's new
 * session atomically. Impersonation sessions are short, marked `impersonatedBy`, never of another admin, and
 * cannot change the user's credentials (the routes with `ownSessionOnly` or `fresh` refuse them).
 *
 * @example
 * await service.ban(admin, { userId, banReason: "spam", banExpiresIn: 86_400 }, meta);
 */
export class AdminService {
  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedAdminOptions,
    private readonly accounts: AdminAccountOps,
  ) {}

  /** Whether `user` is an admin: a role of theirs is in `adminRoles`, or their id is in `adminUserIds`. */
  isAdmin(user: UserRecord): boolean {
    return isAdminUser(this.options, user);
  }

  /** 403 `INSUFFICIENT_PERMISSIONS` unless `user` is an admin (an impersonation session is not the admin's). */
  assertAdmin(user: UserRecord, session: SessionRecord | null = null): void {
    if (session?.impersonatedBy) throw new AuthError("INSUFFICIENT_PERMISSIONS", "Stop impersonating first");
    if (!this.isAdmin(user)) throw new AuthError("INSUFFICIENT_PERMISSIONS", "Only an admin may do this");
  }

  /** A page of users: an email or name prefix (case-insensitive), or every user newest first; with the total. */
  listUsers(input: ListUsersInput): Promise<ListUsersResult> {
    return listUsers(this.ctx.store, input, this.options.listUsersCountLimit);
  }

  /** The user with their sessions, linked accounts, API keys and latest 20 audit rows. 404 `NOT_FOUND`. */
  async getUser(userId: unknown): Promise<AdminUserDetail> {
    return userDetail(this.ctx, await findUser(this.ctx, userId));
  }

  /** Creates a user with a password (as `auth.api.createUser`) and, when given or configured, a role. */
  async createUser(
    actor: UserRecord,
    input: {
      email: string;
      password: string;
      name?: string | null;
      emailVerified?: boolean;
      role?: string | string[] | null;
    },
    meta: RequestMeta,
  ): Promise<AdminUserView> {
    const role = input.role === undefined ? this.options.defaultRole : input.role;
    const checked = role === null ? null : roleValue(role);
    const view = await this.accounts.createUser(
      { email: input.email, password: input.password, name: input.name, emailVerified: input.emailVerified },
      meta,
    );
    if (checked === null) return toAdminUserView(await findUser(this.ctx, view.id));
    return this.setRole(actor, { userId: view.id, role: checked }, meta);
  }

  /** Sets `appMetadata.role` (a role or a list of roles; null removes it). Emits `UserRoleChanged`. */
  async setRole(
    actor: UserRecord,
    input: { userId: string; role: string | string[] | null },
    meta: RequestMeta,
  ): Promise<AdminUserView> {
    const role = input.role === null ? null : roleValue(input.role);
    const user = await findUser(this.ctx, input.userId);
    const { role: _previous, ...rest } = user.appMetadata;
    const appMetadata = role === null ? rest : { ...rest, role };
    const at = new Date(this.ctx.clock.now());
    const updated = await this.ctx.store.users.update(user.id, { appMetadata, updatedAt: at });
    if (!updated?.ok) throw userNotFound();
    await emit(this.ctx, "UserRoleChanged", { userId: user.id, actorId: actor.id, role }, meta, at);
    // Second, after the role: an impersonation started before it is found here; one started after it sees the
    // demotion in `impersonate`'s check and takes itself back.
    if (!this.isAdmin(updated.value)) await endImpersonationsBy(this.ctx, user.id, meta);
    return toAdminUserView(updated.value);
  }

  /**
   * Bans the user: the flag first, then every session and every API key of theirs (disabled, not deleted), so
   * every instance refuses both at once (the lookup cache hears each). Never an admin (403 `CANNOT_BAN_ADMIN`:
   * remove the role first). Emits `UserBanned` and `SessionRevoked` (`reason: "banned"`).
   */
  async ban(actor: UserRecord, input: BanUserInput, meta: RequestMeta): Promise<AdminUserView> {
    const reason = input.banReason ?? null;
    if (reason !== null && (typeof reason !== "string" || reason.length > 500))
      throw invalidField("banReason", "banReason must be at most 500 characters");
    const seconds = input.banExpiresIn ?? null;
    if (seconds !== null && (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_BAN_SECONDS))
      throw invalidField("banExpiresIn", `banExpiresIn must be whole seconds from 1 to ${MAX_BAN_SECONDS}`);
    const user = await findUser(this.ctx, input.userId);
    if (this.isAdmin(user)) throw new AuthError("CANNOT_BAN_ADMIN", "An admin cannot be banned: remove the role first");
    const { ctx } = this;
    const now = ctx.clock.now();
    const banExpires = seconds === null ? null : new Date(now + seconds * 1000);
    const at = new Date(now);
    const outcome = await applyBan(ctx.store, user.id, { reason, expires: banExpires }, at);
    if (!outcome) throw userNotFound();
    const { revoked, disabled } = outcome;
    await emit(
      ctx,
      "UserBanned",
      { userId: user.id, actorId: actor.id, reason, until: banExpires, keysDisabled: disabled },
      meta,
      at,
    );
    if (revoked > 0)
      await emit(
        ctx,
        "SessionRevoked",
        { userId: user.id, sessionId: null, reason: "banned", count: revoked },
        meta,
        at,
      );
    for (const ended of outcome.impersonations)
      await emit(
        ctx,
        "ImpersonationStopped",
        { userId: ended.userId, actorId: user.id, sessionId: ended.id },
        meta,
        at,
      );
    return toAdminUserView(outcome.user);
  }

  /**
   * Lifts the ban: the user may sign in again. The API keys the ban disabled stay disabled (the owner or an admin
   * enables the ones still wanted). Emits `UserUnbanned`.
   */
  async unban(actor: UserRecord, userId: string, meta: RequestMeta): Promise<AdminUserView> {
    const user = await findUser(this.ctx, userId);
    const at = new Date(this.ctx.clock.now());
    const updated = await this.ctx.store.users.update(user.id, {
      banned: false,
      banReason: null,
      banExpires: null,
      updatedAt: at,
    });
    if (!updated?.ok) throw userNotFound();
    await emit(this.ctx, "UserUnbanned", { userId: user.id, actorId: actor.id }, meta, at);
    return toAdminUserView(updated.value);
  }

  /** Revokes every session of the user; how many. Emits `SessionRevoked` (`reason: "admin"`). */
  async revokeSessions(_actor: UserRecord, userId: string, meta: RequestMeta): Promise<{ count: number }> {
    const user = await findUser(this.ctx, userId);
    const count = await this.ctx.sessions.revokeAll(user.id);
    if (count > 0)
      await emit(this.ctx, "SessionRevoked", { userId: user.id, sessionId: null, reason: "admin", count }, meta);
    return { count };
  }

  /** Deletes the user and everything of theirs (as account deletion does). Never an admin, never oneself (403). */
  async removeUser(actor: UserRecord, userId: string, meta: RequestMeta): Promise<{ success: true }> {
    const user = await findUser(this.ctx, userId);
    if (user.id === actor.id || this.isAdmin(user))
      throw new AuthError("INSUFFICIENT_PERMISSIONS", "An admin cannot be removed here: remove the role first");
    if (!(await this.accounts.removeUser(user, meta))) throw userNotFound();
    return { success: true };
  }

  /**
   * Starts a session as the user: `impersonatedBy` the admin, lasting `impersonationSessionDuration` (never sliding),
   * unable to change the user's password, second factor, passkeys or account. Never of another admin, never from
   * an impersonation session (403 `IMPERSONATION_NOT_ALLOWED`); a banned user has none (403 `USER_BANNED`).
   * Emits `ImpersonationStarted`.
   */
  impersonate(
    actor: UserRecord,
    actorSession: SessionRecord,
    userId: string,
    meta: RequestMeta,
  ): Promise<SignInResult> {
    return impersonateUser(this.ctx, this.options, actor, actorSession, userId, meta);
  }

  /**
   * The cookie that keeps the admin's own session token while they impersonate (`<prefix>.admin_session`, beside the
   * session cookie), so `/admin/stop-impersonating` can give it back; `null` clears it.
   */
  adminSessionCookie(token: string | null): CookieDescriptor {
    return adminSessionCookie(this.ctx, this.options, token);
  }

  /**
   * The admin's own session back, from the token the admin-session cookie kept: only a live session of `actorId`
   * that is not itself an impersonation; null otherwise (the admin signs in again).
   */
  restoreAdmin(
    token: string | null,
    actorId: string,
  ): Promise<{ user: UserView; session: SessionView; cookie: CookieDescriptor } | null> {
    return restoreAdmin(this.ctx, token, actorId);
  }

  /** Ends an impersonation session (deleted on every instance). 400 for a session that is not one. */
  stopImpersonating(session: SessionRecord, meta: RequestMeta): Promise<{ actorId: string }> {
    return stopImpersonating(this.ctx, session, meta);
  }
}
