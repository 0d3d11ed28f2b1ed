import { invalidOtp } from "../errors/errors.ts";
import { normalizeEmail } from "../kernel/validation.ts";
import { accountLockKey, lockoutIdentifier } from "../rate-limit/rate-limit.ts";
import { toUserView, type UserView } from "../session/session.ts";
import { inTransaction } from "../context/transaction.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import { proveMailbox } from "../identity/mailbox-proof.ts";
import { newAccount } from "../identity/accounts.ts";
import type { OtpCodes } from "./otp-codes.ts";
import { otpTarget } from "./otp-inputs.ts";

/** Mailbox proven by an OTP: pre-proof accounts go (unverified users only) and an `EMAIL_OTP` account exists. */
export async function proveForOtp(
  ctx: AuthContext,
  user: UserRecord,
  meta: RequestMeta,
  signedInAs: { userId: string; sessionId: string } | null = null,
): Promise<UserRecord> {
  const proven = await proveMailbox(ctx, user, "EMAIL_OTP", meta, signedInAs);
  const accounts = await ctx.store.accounts.listByUser(proven.id);
  if (!accounts.some((a) => a.providerId === "EMAIL_OTP"))
    await ctx.store.accounts.create(newAccount(ctx, proven.id, "EMAIL_OTP", null));
  return proven;
}

/**
 * Consumes an `email-verification` code and marks the email verified. `signedInAs`: the session the request
 * carried, if any; when it is this user's, the password and that session survive the proof (see proveMailbox).
 */
export async function verifyEmailWithOtp(
  ctx: AuthContext,
  codes: OtpCodes,
  input: { email: string; otp: string },
  meta: RequestMeta,
  signedInAs: { userId: string; sessionId: string } | null = null,
): Promise<{ user: UserView }> {
  const email = normalizeEmail(input.email);
  const t = otpTarget("email-verification", email);
  const owner = await ctx.store.users.findByEmail(email);
  const row = await codes.verify(t, input.otp, meta, {
    mode: "consume",
    lockoutKey: accountLockKey(owner, lockoutIdentifier({ email })),
  });
  const user = await ctx.store.users.findByEmail(email);
  if (!user || (row.userId !== null && row.userId !== user.id)) throw invalidOtp();
  const proven = await inTransaction(ctx, (tx) => proveForOtp(tx, user, meta, signedInAs));
  await codes.verified(t, proven.id, meta);
  return { user: toUserView(proven) };
}
