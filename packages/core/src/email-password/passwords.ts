import { banInForce } from "../ports/ban.ts";
import { AuthError } from "../errors/errors.ts";
import { checkPasswordLength, normalizeEmail, resolveCallbackUrl, withQuery } from "../kernel/validation.ts";
import type { ValidatedSession } from "../session/session.ts";
import type { AuthContext } from "../context/context.ts";
import { inTransaction } from "../context/transaction.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { accountLockKey, lockoutIdentifier } from "../rate-limit/rate-limit.ts";
import { proveMailbox } from "../identity/mailbox-proof.ts";
import { emitPasswordReset, newAccount } from "../identity/accounts.ts";
import type { AccountRecord, UserRecord } from "../ports/records.ts";
import { enforcePasswordCheck } from "../password/policy.ts";
import { emit } from "../kernel/emit.ts";

// The password of an existing account: checking the current one, changing it, and resetting it by emailed link
// (EmailPasswordService's methods of the same names run these).

/** Never issued: the verification write an unknown address's reset request makes instead of issuing a token. */
const UNKNOWN_RESET_IDENTIFIER = "password-reset:unknown-address";

/**
 * Verifies the current password for change-password, verify-password and delete-account; the attempt counts
 * against the account's lockout before the password is checked.
 */
export async function verifyCurrentPassword(
  ctx: AuthContext,
  user: UserRecord,
  password: string,
  meta: RequestMeta,
): Promise<boolean> {
  const attempt = await ctx.lockout.attempt(accountLockKey(user, lockoutIdentifier({ email: user.email })), meta);
  const account = await credentialOf(ctx, user.id);
  let valid = false;
  if (account?.passwordHash) valid = await ctx.hasher.verify(account.passwordHash, password);
  else await ctx.burnPasswordHash(password);
  if (!valid) {
    await ctx.lockout.failed(attempt, meta);
    return false;
  }
  await ctx.lockout.succeeded(attempt);
  return true;
}

export async function changePassword(
  ctx: AuthContext,
  current: ValidatedSession,
  input: { currentPassword: string; newPassword: string; revokeOtherSessions?: boolean },
  meta: RequestMeta,
): Promise<void> {
  checkPasswordLength(ctx.config, input.newPassword);
  await enforcePasswordCheck(ctx.config.emailPassword.passwordCheck, input.newPassword, current.userRecord);
  if (!(await verifyCurrentPassword(ctx, current.userRecord, input.currentPassword, meta))) {
    throw new AuthError("INVALID_PASSWORD", "The current password is wrong");
  }
  const userId = current.userRecord.id;
  const account = newAccount(ctx, userId, "credential", await ctx.hasher.hash(input.newPassword));
  // The new password and the revocation of the other sessions commit together. On stores that compensate
  // instead of rolling back, the other sessions also go before the password is written, so a failure half-way
  // never leaves a session of the old password next to the new one (invariant 4 in docs/invariants.md).
  const count = await inTransaction(ctx, async (tx) => {
    if (!input.revokeOtherSessions) {
      await tx.store.accounts.upsertPassword(userId, account);
      return null;
    }
    const before = await tx.sessions.revokeAll(userId, current.session.id);
    await tx.store.accounts.upsertPassword(userId, account);
    return before + (await tx.sessions.revokeAll(userId, current.session.id));
  });
  const at = new Date(ctx.clock.now());
  await emit(ctx, "PasswordChanged", { userId, method: "change-password" }, meta, at);
  if (count !== null) {
    await emit(ctx, "SessionRevoked", { userId, sessionId: null, reason: "password-changed", count }, meta, at);
  }
}

/** Emails a reset link when the email belongs to a user; answers the same either way. */
export async function requestPasswordReset(
  ctx: AuthContext,
  input: { email: string; redirectTo?: string | null },
  meta: RequestMeta,
): Promise<{ success: true }> {
  const { passwordReset } = ctx.config.emailPassword;
  const email = normalizeEmail(input.email);
  const target = resolveCallbackUrl(
    ctx.config,
    input.redirectTo,
    passwordReset.callbackUrlOverride ?? ctx.config.baseUrl + passwordReset.callbackPath,
  );
  const user = await ctx.store.users.findByEmail(email);
  const at = new Date(ctx.clock.now());
  // The same store work either way (review fix 8): one verification write and the `OtpRequested` event (an
  // audit row with auditLog()), so the answer's timing does not tell a registered address from an unknown one.
  // Past the send limits (counted for unknown addresses too, so the work and the 429 are the same): a link
  // already sent stays live.
  await ctx.sendLimits.enforce("password-reset-link", email, meta, user?.id ?? null);
  // A banned user (`admin()`) gets no link either, and the same answer.
  if (!user || banInForce(user, at)) {
    await ctx.store.verifications.deleteByIdentifier(UNKNOWN_RESET_IDENTIFIER);
    await emit(ctx, "OtpRequested", { identifier: email, purpose: "password-reset-link" }, meta, at);
    return { success: true };
  }
  const identifier = `password-reset:${user.id}`;
  const token = await ctx.secrets.issueToken(identifier, user.id, passwordReset.expiresInMs);
  await emit(ctx, "OtpRequested", { identifier: email, purpose: "password-reset-link" }, meta, at);
  await emit(ctx, "OtpGenerated", { identifier: email, purpose: "password-reset-link", plain: token }, meta, at);
  ctx.mailer.sendInBackground(meta, email, "password-reset", {
    url: withQuery(target, { token }),
    token,
    expiresInMinutes: String(Math.round(passwordReset.expiresInMs / 60000)),
  });
  return { success: true };
}

/**
 * Sets a new password from an emailed token and revokes every session of the user. The link proves the mailbox,
 * so a user not verified before loses what was set up before the proof (see proveMailbox). The token is spent
 * last, in the same transaction as the writes: a failed write leaves it usable for a retry; on stores that
 * compensate instead of rolling back, the sessions are revoked first, so none survives a failure half-way.
 */
export async function resetPassword(
  ctx: AuthContext,
  input: { token: string; newPassword: string },
  meta: RequestMeta,
): Promise<{ success: true }> {
  checkPasswordLength(ctx.config, input.newPassword);
  // The token and its user are looked up before the hash, so a made-up token costs a read, not a password hash;
  // the token is spent after it, in the transaction below (a concurrent use of the same token loses there).
  const row = await ctx.secrets.findToken(input.token, "password-reset:");
  const found = row.userId ? await ctx.store.users.findById(row.userId) : null;
  if (!found) throw new AuthError("INVALID_TOKEN", "The link is invalid or has expired");
  await enforcePasswordCheck(ctx.config.emailPassword.passwordCheck, input.newPassword, found);
  const passwordHash = await ctx.hasher.hash(input.newPassword);
  const account = newAccount(ctx, found.id, "credential", passwordHash);
  const { user, count } = await inTransaction(ctx, async (tx) => {
    let revoked = await tx.sessions.revokeAll(found.id);
    const proven = await proveMailbox(tx, found, "credential", meta);
    await tx.store.accounts.upsertPassword(found.id, account);
    revoked += await tx.sessions.revokeAll(found.id);
    if (!(await tx.store.verifications.consume(row.id)))
      throw new AuthError("INVALID_TOKEN", "The link is invalid or has expired");
    return { user: proven, count: revoked };
  });
  const at = new Date(ctx.clock.now());
  // A sign-in that checked the old password and wrote its session before the commit was not visible to the
  // revocation above: it is visible now (see EmailPasswordService.signIn).
  const late = await ctx.sessions.revokeAll(user.id);
  await emit(ctx, "OtpVerified", { identifier: user.email, purpose: "password-reset-link", userId: user.id }, meta, at);
  await emitPasswordReset(ctx, { userId: user.id, method: "reset-token", count: count + late, at, meta });
  return { success: true };
}

/** The user's credential account (the one holding a password), if any. */
export async function credentialOf(ctx: AuthContext, userId: string): Promise<AccountRecord | undefined> {
  return (await ctx.store.accounts.listByUser(userId)).find((a) => a.providerId === "credential" && a.passwordHash);
}
