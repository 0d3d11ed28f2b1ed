import { AuthError } from "../errors/errors.ts";
import { normalizeEmail } from "../kernel/validation.ts";
import { accountLockKey, lockoutIdentifier } from "../rate-limit/rate-limit.ts";
import { inTransaction } from "../context/transaction.ts";
import { deleteAccountIdentifier } from "../account/index.ts";
import { verificationLinkIdentifier } from "../email-verification/index.ts";
import { toUserView, type UserView } from "../session/session.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { emit } from "../kernel/emit.ts";
import type { UserRecord } from "../ports/records.ts";
import { SEND_PURPOSES, type ResolvedEmailOtpOptions } from "./options.ts";
import { otpIdentifier, type OtpCodes, type OtpTarget } from "./otp-codes.ts";

/**
 * @example
 * const input: RequestEmailChangeInput = { newEmail: "ada@new.example", otpForCurrent: "042917" };
 */
export interface RequestEmailChangeInput {
  newEmail: string;
  /** An `email-verification` code of the current email; required with `emailChange.verifyCurrentEmail`. */
  otpForCurrent?: string | null;
}

/**
 * @example
 * const input: ChangeEmailInput = { newEmail: "ada@new.example", otp: "042917" };
 */
export interface ChangeEmailInput {
  newEmail: string;
  otp: string;
}

/**
 * Email change by OTP (only with `emailChange.enabled`). One pending change per user: the row is keyed by the
 * user id and carries the new email, so another user asking for the same address cannot cancel it.
 *
 * @example
 * await emailChange.request(user, { newEmail: "ada@new.example" }, meta);
 * const { user: changed } = await emailChange.change(user, { newEmail: "ada@new.example", otp: "042917" }, meta);
 */
export class EmailChangeService {
  constructor(
    private readonly ctx: AuthContext,
    private readonly options: ResolvedEmailOtpOptions,
    private readonly codes: OtpCodes,
  ) {}

  private assertEnabled(): void {
    if (!this.options.emailChange.enabled) throw new AuthError("NOT_FOUND", "Email change is not enabled");
  }

  private target(user: UserRecord, newEmail: string): OtpTarget {
    return { purpose: "email-change", identifier: otpIdentifier("email-change", user.id), email: newEmail };
  }

  /**
   * Sends a code to the new email. An address that already belongs to someone gets the same
   * `{success: true}` and nothing else (no enumeration); `change` then fails with INVALID_OTP.
   */
  async request(user: UserRecord, input: RequestEmailChangeInput, meta: RequestMeta): Promise<{ success: true }> {
    this.assertEnabled();
    const { ctx } = this;
    const newEmail = normalizeEmail(input.newEmail);
    if (newEmail === user.email)
      throw new AuthError("INVALID_REQUEST", "The new email is the current one", {
        details: [{ path: "newEmail", message: "same as the current email" }],
      });
    if (this.options.emailChange.verifyCurrentEmail) {
      if (input.otpForCurrent == null) {
        throw new AuthError(
          "INVALID_REQUEST",
          "otpForCurrent is required: send an email-verification code to the current email first",
          { details: [{ path: "otpForCurrent", message: "required" }] },
        );
      }
      this.codes.assertFormat(input.otpForCurrent, "otpForCurrent");
      const current: OtpTarget = {
        purpose: "email-verification",
        identifier: otpIdentifier("email-verification", user.email),
        email: user.email,
      };
      await this.codes.verify(current, input.otpForCurrent, meta, {
        mode: "consume",
        lockoutKey: accountLockKey(user, lockoutIdentifier({ email: user.email })),
        matches: (row) => row.userId === user.id,
      });
      await this.codes.verified(current, user.id, meta);
    }
    const owner = await ctx.store.users.findByEmail(newEmail);
    const recipient = owner ? null : { userId: user.id, payload: newEmail };
    await this.codes.issueTo(this.target(user, newEmail), recipient, meta, owner?.id ?? null);
    return { success: true };
  }

  /**
   * Consumes the code sent to `newEmail` for this user, then moves the email (409 EMAIL_TAKEN on a conflict).
   * Everything bound to the old address goes with the change, in the same transaction: pending password-reset,
   * delete-account and verification links and every code of the user; the user's other sessions are revoked
   * (`currentSessionId`, the session the change arrived with, is kept). The old address is told.
   */
  async change(
    user: UserRecord,
    input: ChangeEmailInput,
    meta: RequestMeta,
    currentSessionId: string | null = null,
  ): Promise<{ user: UserView }> {
    this.assertEnabled();
    const { ctx } = this;
    const newEmail = normalizeEmail(input.newEmail);
    const t = this.target(user, newEmail);
    await this.codes.verify(t, input.otp, meta, {
      mode: "consume",
      // The account doing the change is locked, never the address being claimed (a third party's).
      lockoutKey: accountLockKey(user, lockoutIdentifier({ email: user.email })),
      matches: (row) => row.userId === user.id && row.payload === newEmail,
    });
    const at = new Date(ctx.clock.now());
    const { updated, revoked } = await inTransaction(ctx, async (tx) => {
      const result = await tx.store.users.update(user.id, { email: newEmail, emailVerified: true, updatedAt: at });
      if (!result) throw new AuthError("INVALID_CREDENTIALS", "Sign in first");
      if (!result.ok) throw new AuthError("EMAIL_TAKEN", "That email belongs to another account");
      for (const identifier of boundToAddress(user)) await tx.store.verifications.deleteByIdentifier(identifier);
      const count = await tx.sessions.revokeAll(user.id, currentSessionId ?? undefined);
      return { updated: result.value, revoked: count };
    });
    await this.codes.verified(t, user.id, meta);
    await emit(ctx, "EmailChanged", { userId: user.id, oldEmail: user.email, newEmail }, meta, at);
    if (revoked > 0) {
      const revocation = { userId: user.id, sessionId: null, reason: "email-changed", count: revoked } as const;
      await emit(ctx, "SessionRevoked", revocation, meta, at);
    }
    ctx.mailer.sendInBackground(meta, user.email, "email-changed", { oldEmail: user.email, newEmail });
    return { user: toUserView(updated) };
  }
}

/**
 * The verification rows a user's old address or identity stands behind: password reset and account deletion
 * (keyed by user id), the verification link and every code sent to the old email, and a pending email change.
 */
function boundToAddress(user: UserRecord): string[] {
  return [
    `password-reset:${user.id}`,
    deleteAccountIdentifier(user.id),
    verificationLinkIdentifier(user.email),
    ...SEND_PURPOSES.map((purpose) => otpIdentifier(purpose, user.email)),
    otpIdentifier("email-change", user.id),
  ];
}
