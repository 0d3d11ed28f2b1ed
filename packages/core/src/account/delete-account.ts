import { AuthError } from "../errors/errors.ts";
import { withQuery } from "../kernel/validation.ts";
import type { EmailPasswordService } from "../email-password/index.ts";
import { accountLockKey, lockoutIdentifier } from "../rate-limit/rate-limit.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import { emit } from "../kernel/emit.ts";
import { endImpersonationsBy } from "./impersonation.ts";

/**
 * The verification-row identifier of a deletion token: one live token per user.
 *
 * @example
 * await store.verifications.findByIdentifier(deleteAccountIdentifier(user.id));
 */
export function deleteAccountIdentifier(userId: string): string {
  return `delete-account:${userId}`;
}

const invalidToken = () => new AuthError("INVALID_TOKEN", "The link is invalid or has expired");

/**
 * Account deletion: directly with the password, or through a single-use token emailed to the account's
 * address. Deletion removes the user with its sessions, accounts, API keys and verification rows in one
 * atomic store call, and the lockout state of its email and username; audit rows stay.
 *
 * @example
 * await core.accountDeletion.request(session.userRecord, meta);           // emails the link
 * await core.accountDeletion.confirm(token, null, meta);                  // the token alone suffices
 */
export class AccountDeletionService {
  constructor(
    private readonly ctx: AuthContext,
    private readonly emailPassword: EmailPasswordService,
  ) {}

  /** Deletes after verifying the current password (401 INVALID_PASSWORD, counted by the lockout). */
  async deleteWithPassword(user: UserRecord, password: string, meta: RequestMeta): Promise<{ success: true }> {
    if (!(await this.emailPassword.verifyCurrentPassword(user, password, meta)))
      throw new AuthError("INVALID_PASSWORD", "The password is wrong");
    // A parallel deletion won: the session this request stood on is gone with the user.
    if (!(await this.remove(user, meta))) throw new AuthError("INVALID_CREDENTIALS", "The account no longer exists");
    return { success: true };
  }

  /**
   * Emails a confirmation link (`deleteAccount.callbackUrlOverride`, else baseUrl + `callbackPath`, with
   * `?token=`) to the account's current address. A new request invalidates the previous token.
   */
  async request(user: UserRecord, meta: RequestMeta): Promise<{ success: true }> {
    const { ctx } = this;
    const { deleteAccount, baseUrl } = ctx.config;
    // Past the send limits (429): the link already sent stays the live one.
    await ctx.sendLimits.enforce("delete-account", user.email, meta, user.id);
    const token = await ctx.secrets.issueToken(deleteAccountIdentifier(user.id), user.id, deleteAccount.expiresInMs);
    const base = { identifier: user.email, purpose: "delete-account" as const };
    const at = new Date(ctx.clock.now());
    await emit(ctx, "OtpRequested", base, meta, at);
    await emit(ctx, "OtpGenerated", { ...base, plain: token }, meta, at);
    const url = withQuery(deleteAccount.callbackUrlOverride ?? baseUrl + deleteAccount.callbackPath, { token });
    // Awaited: the caller is signed in (nothing to enumerate) and should learn when the email could not go.
    await ctx.mailer.send(
      user.email,
      "delete-account",
      { url, token, email: user.email, expiresInMinutes: String(Math.round(deleteAccount.expiresInMs / 60000)) },
      deleteAccount.subject,
    );
    return { success: true };
  }

  /**
   * Deletes the account the token was issued for. The token alone suffices (it proves the mailbox); when the
   * request also carries a session (`sessionUserId`), the token must belong to that same user, and a token
   * of another user is refused without being consumed. Exactly one of N parallel confirmations deletes.
   */
  async confirm(token: string, sessionUserId: string | null, meta: RequestMeta): Promise<{ success: true }> {
    const { ctx } = this;
    const row =
      sessionUserId === null
        ? await ctx.secrets.consumeToken(token, "delete-account:")
        : await ctx.secrets.consumeTokenFor(token, deleteAccountIdentifier(sessionUserId));
    if (!row.userId || row.identifier !== deleteAccountIdentifier(row.userId)) throw invalidToken();
    const user = await ctx.store.users.findById(row.userId);
    if (!user) throw invalidToken();
    await emit(ctx, "OtpVerified", { identifier: user.email, purpose: "delete-account", userId: user.id }, meta);
    if (!(await this.remove(user, meta))) throw invalidToken();
    return { success: true };
  }

  /**
   * Removes the user and everything auth-owned of theirs. False when another call deleted it first
   * (only the winner emits `AccountDeleted`). Issued JWTs are stateless and live until they expire.
   */
  async remove(user: UserRecord, meta: RequestMeta): Promise<boolean> {
    const { ctx } = this;
    if (!(await ctx.store.users.delete(user.id))) return false;
    // Sessions of other users this one started as an admin (`impersonatedBy`) are not theirs: no cascade reaches them.
    await endImpersonationsBy(ctx, user.id, meta);
    // Counters live outside the user's rows (possibly in another engine), so the store cascade cannot reach them:
    // the account's own lockout and those of its identifiers go here.
    await ctx.lockout.forget(accountLockKey(user, ""));
    await ctx.lockout.forgetCodes(accountLockKey(user, ""));
    await ctx.lockout.forget(lockoutIdentifier({ email: user.email }));
    if (user.username !== null) await ctx.lockout.forget(lockoutIdentifier({ username: user.username }));
    await emit(ctx, "AccountDeleted", { userId: user.id, email: user.email }, meta);
    return true;
  }
}
