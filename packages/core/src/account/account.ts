import { AuthError, invalidField } from "../errors/errors.ts";
import { checkPasswordLength, normalizeUsername } from "../kernel/validation.ts";
import { enforcePasswordCheck } from "../password/policy.ts";
import { newAccount } from "../identity/accounts.ts";
import type { EmailPasswordService } from "../email-password/index.ts";
import { lockoutIdentifier } from "../rate-limit/rate-limit.ts";
import { toUserView, type UserView, type ValidatedSession } from "../session/session.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { JsonObject, UserRecord } from "../ports/records.ts";
import type { UserPatch } from "../ports/store.ts";
import { inTransaction } from "../context/transaction.ts";
import { emit } from "../kernel/emit.ts";
import { endImpersonationsBy } from "./impersonation.ts";

/** What `PATCH /user` may change. Omitted fields are kept; null clears `name` and `image`. */
export interface UpdateUserInput {
  name?: string | null;
  image?: string | null;
  /** Replaces the whole stored object; `{}` clears it. User-controlled: never use it for authorization. */
  metadata?: JsonObject;
  /**
   * Server-only data (roles, plan): replaces the whole stored object. Only trusted server code
   * (`auth.api.updateUser`) may write it; from a request it is 400 `SERVER_ONLY_PROPERTY`.
   */
  appMetadata?: JsonObject;
  /** Only when `emailPassword.allowUsernameChange` (trusted server calls always may). Cannot be cleared. */
  username?: string;
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Account settings of a signed-in user: profile update, adding a first password, checking the current one.
 *
 * @example
 * const view = await core.account.updateUser(session.userRecord, { name: "Ada", image: null }, meta);
 * await core.account.setPassword(session, "a new long password", meta);
 */
export class AccountService {
  /** Set-password calls in flight, by user: a second one waits for the first instead of hashing beside it. */
  private readonly settingPassword = new Map<string, Promise<unknown>>();

  constructor(
    private readonly ctx: AuthContext,
    private readonly emailPassword: EmailPasswordService,
  ) {}

  /**
   * Applies a profile patch. Only name, image, metadata and username are ever written (email, emailVerified
   * and ids cannot be reached from here). `trusted` (server code) may change the username even when
   * `allowUsernameChange` is off.
   */
  async updateUser(
    user: UserRecord,
    input: UpdateUserInput,
    meta: RequestMeta,
    options: { trusted?: boolean } = {},
  ): Promise<UserView> {
    const { ctx } = this;
    const patch: UserPatch = {};
    if (input.appMetadata !== undefined) {
      if (!options.trusted)
        throw new AuthError("SERVER_ONLY_PROPERTY", "appMetadata can only be set by the server", {
          details: [{ path: "appMetadata", message: "server-only property" }],
        });
      if (!isPlainObject(input.appMetadata)) throw invalidField("appMetadata", "appMetadata must be an object");
      patch.appMetadata = input.appMetadata;
    }
    if (input.name !== undefined) patch.name = input.name;
    if (input.image !== undefined) patch.image = input.image;
    if (input.metadata !== undefined) {
      if (!isPlainObject(input.metadata)) throw invalidField("metadata", "metadata must be an object");
      patch.metadata = input.metadata;
    }
    let newUsername: string | null = null;
    if (input.username !== undefined) {
      if (typeof input.username !== "string") throw new AuthError("INVALID_USERNAME", "A username cannot be cleared");
      // Re-sending the current username (a form that posts every field) is not a change.
      if (input.username.trim().toLowerCase() !== user.username) {
        if (!options.trusted && !ctx.config.emailPassword.allowUsernameChange)
          throw new AuthError("USERNAME_CHANGE_DISABLED", "Usernames cannot be changed");
        newUsername = normalizeUsername(input.username);
        patch.username = newUsername;
      }
    }
    const fields = Object.keys(patch);
    if (fields.length === 0) return toUserView(user);
    patch.updatedAt = new Date(ctx.clock.now());
    const result = await ctx.store.users.update(user.id, patch);
    if (!result) throw new AuthError("INVALID_CREDENTIALS", "The account no longer exists");
    if (!result.ok) throw new AuthError("USERNAME_TAKEN", "That username is taken");
    if (newUsername !== null) {
      // Failures counted against the old name follow the account; the new name starts clean for it.
      if (user.username !== null)
        await ctx.lockout.move(
          lockoutIdentifier({ username: user.username }),
          lockoutIdentifier({ username: newUsername }),
        );
      else await ctx.lockout.forget(lockoutIdentifier({ username: newUsername }));
    }
    await emit(ctx, "UserUpdated", { userId: user.id, fields }, meta, patch.updatedAt);
    // A changed server-written role may be a lost admin authority (`admin()` reads it): the impersonations this
    // user started end with it (decision 0080).
    if (patch.appMetadata !== undefined && !sameJson(user.appMetadata.role, patch.appMetadata.role))
      await endImpersonationsBy(ctx, user.id, meta);
    return toUserView(result.value);
  }

  /**
   * Adds a credential password to an account without one (e.g. created by OTP sign-in). Atomic: of two
   * parallel calls one wins, the other gets PASSWORD_ALREADY_SET. Other sessions are revoked, this one kept.
   */
  async setPassword(current: ValidatedSession, newPassword: string, meta: RequestMeta): Promise<{ success: true }> {
    const userId = current.userRecord.id;
    checkPasswordLength(this.ctx.config, newPassword);
    // One hash in flight per user: parallel calls queue here, and each then reads "already set?" after the one
    // before it finished, so 100 parallel requests cost one hash, not 100 (the atomic write still decides).
    let previous = this.settingPassword.get(userId);
    while (previous) {
      await previous.catch(() => undefined);
      previous = this.settingPassword.get(userId);
    }
    const attempt = this.addPassword(current, newPassword, meta);
    this.settingPassword.set(userId, attempt);
    try {
      return await attempt;
    } finally {
      if (this.settingPassword.get(userId) === attempt) this.settingPassword.delete(userId);
    }
  }

  private async addPassword(
    current: ValidatedSession,
    newPassword: string,
    meta: RequestMeta,
  ): Promise<{ success: true }> {
    const { ctx } = this;
    const userId = current.userRecord.id;
    const alreadySet = () =>
      new AuthError("PASSWORD_ALREADY_SET", "This account already has a password; use change-password");
    // A cheap read first so the common refusal costs no hash; the write below decides atomically.
    if ((await ctx.store.accounts.listByUser(userId)).some((a) => a.providerId === "credential" && a.passwordHash))
      throw alreadySet();
    await enforcePasswordCheck(ctx.config.emailPassword.passwordCheck, newPassword, current.userRecord);
    const passwordHash = await ctx.hasher.hash(newPassword);
    const now = new Date(ctx.clock.now());
    // The password and the revocation of the other sessions commit together. On stores that compensate instead of
    // rolling back, the other sessions also go before the password is written: a failure after the write would
    // otherwise leave them for good (a retry answers PASSWORD_ALREADY_SET), see docs/invariants.md.
    const count = await inTransaction(ctx, async (tx) => {
      const before = await tx.sessions.revokeAll(userId, current.session.id);
      const added = await tx.store.accounts.setPasswordIfAbsent(
        userId,
        newAccount(ctx, userId, "credential", passwordHash),
      );
      if (!added) throw alreadySet();
      const revoked = before + (await tx.sessions.revokeAll(userId, current.session.id));
      // The session was checked when the request arrived; a mailbox proof or a sign-out since then (the hash takes
      // a while) revoked it: then nothing here may commit.
      await tx.sessions.assertStillLive(current.sessionRecord);
      return revoked;
    });
    await emit(ctx, "PasswordChanged", { userId, method: "set-password" }, meta, now);
    await emit(ctx, "SessionRevoked", { userId, sessionId: null, reason: "password-set", count }, meta, now);
    return { success: true };
  }

  /** `{valid: true}` or 401 INVALID_PASSWORD; failures feed the same lockout as sign-in (429 ACCOUNT_LOCKED). */
  async verifyPassword(user: UserRecord, password: string, meta: RequestMeta): Promise<{ valid: true }> {
    if (!(await this.emailPassword.verifyCurrentPassword(user, password, meta)))
      throw new AuthError("INVALID_PASSWORD", "The password is wrong");
    return { valid: true };
  }
}

/** Whether two JSON values are the same (a role is a string, a list of strings, or absent). */
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
