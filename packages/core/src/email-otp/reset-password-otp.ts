import { invalidField, invalidOtp } from "../errors/errors.ts";
import { checkPasswordLength, normalizeEmail } from "../kernel/validation.ts";
import { enforcePasswordCheck } from "../password/policy.ts";
import { accountLockKey, lockoutIdentifier } from "../rate-limit/rate-limit.ts";
import { inTransaction } from "../context/transaction.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { proveMailbox } from "../identity/mailbox-proof.ts";
import { emitPasswordReset, newAccount } from "../identity/accounts.ts";
import type { OtpCodes } from "./otp-codes.ts";
import { otpTarget, type ResetPasswordOtpInput } from "./otp-inputs.ts";

/**
 * Consumes a `password-reset` code, sets the password (creating the credential account if missing),
 * marks the email verified (the code proved the mailbox) and revokes every session of the user. The code is
 * spent last, in the transaction of the writes (a failed write leaves it usable); the sessions are revoked
 * first, so on stores that compensate instead of rolling back none survives a failure half-way.
 */
export async function resetPasswordWithOtp(
  ctx: AuthContext,
  codes: OtpCodes,
  input: ResetPasswordOtpInput,
  meta: RequestMeta,
): Promise<{ success: true }> {
  const email = normalizeEmail(input.email);
  if (typeof input.password !== "string") throw invalidField("password", "password must be a string");
  checkPasswordLength(ctx.config, input.password);
  const t = otpTarget("password-reset", email);
  const owner = await ctx.store.users.findByEmail(email);
  const row = await codes.verify(t, input.otp, meta, {
    mode: "claim",
    lockoutKey: accountLockKey(owner, lockoutIdentifier({ email })),
  });
  const user = await ctx.store.users.findByEmail(email);
  if (!user || row.userId !== user.id) throw invalidOtp();
  await enforcePasswordCheck(ctx.config.emailPassword.passwordCheck, input.password, user);
  // Hashed only after the code matched: wrong guesses must not buy an argon2 run each.
  const passwordHash = await ctx.hasher.hash(input.password);
  // Mailbox proof, new password, the revocation of every session and the spent code commit together.
  const count = await inTransaction(ctx, async (tx) => {
    let revoked = await tx.sessions.revokeAll(user.id);
    await proveMailbox(tx, user, "credential", meta);
    await tx.store.accounts.upsertPassword(user.id, newAccount(ctx, user.id, "credential", passwordHash));
    revoked += await tx.sessions.revokeAll(user.id);
    // Another request with the same code won meanwhile: this one changes nothing.
    if (!(await tx.store.verifications.consume(row.id))) throw invalidOtp();
    return revoked;
  });
  // A password sign-in that wrote its session before the commit was not visible to the revocation (see signIn).
  const late = await ctx.sessions.revokeAll(user.id);
  const at = new Date(ctx.clock.now());
  await codes.verified(t, user.id, meta);
  await emitPasswordReset(ctx, { userId: user.id, method: "reset-otp", count: count + late, at, meta });
  return { success: true };
}
