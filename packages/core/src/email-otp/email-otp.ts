import { banInForce } from "../ports/ban.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import { normalizeEmail } from "../kernel/validation.ts";
import { accountLockKey, codeLockKey, lockoutIdentifier } from "../rate-limit/rate-limit.ts";
import type { UserView } from "../session/session.ts";
import { isChallenge, signInOrChallenge, type SignInOutcome } from "../session/sign-in-gate.ts";
import { inTransaction } from "../context/transaction.ts";
import type { AuthContext } from "../context/context.ts";
import { EmailChangeService } from "./email-change.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import { SEND_PURPOSES, type ResolvedEmailOtpOptions } from "./options.ts";
import { invalidOtp } from "../errors/errors.ts";
import type { OtpCodes } from "./otp-codes.ts";
import {
  otpTarget,
  type CheckOtpInput,
  type ResetPasswordOtpInput,
  type SendOtpInput,
  type SignInOtpInput,
} from "./otp-inputs.ts";
import { resetPasswordWithOtp } from "./reset-password-otp.ts";
import { proveForOtp, verifyEmailWithOtp } from "./verify-email-otp.ts";
import { newAccount, newVerifiedUser } from "../identity/accounts.ts";
import { emit } from "../kernel/emit.ts";
import { isHookRefusal } from "../hooks/index.ts";

/**
 * Email OTP flows that need no session: send, check, sign-in, verify-email and password reset.
 *
 * @example
 * await service.send({ email: "ada@example.com", purpose: "sign-in" }, meta);
 * const { user, session, cookie } = await service.signIn({ email: "ada@example.com", otp: "042917" }, meta);
 */
export class EmailOtpService {
  /** The opt-in email change (`emailOtp({ emailChange: { enabled: true } })`), over the same codes. */
  readonly emailChange: EmailChangeService;

  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedEmailOtpOptions,
    readonly codes: OtpCodes,
  ) {
    this.emailChange = new EmailChangeService(ctx, options, codes);
  }

  /**
   * `{success: true}` whether or not the email is registered. Eligible: a user for email-verification and
   * password-reset; anyone for sign-in unless `allowSignUp` is false (then users only).
   */
  async send(input: SendOtpInput, meta: RequestMeta): Promise<{ success: true }> {
    if (!SEND_PURPOSES.includes(input.purpose))
      throw invalidField("purpose", `purpose must be one of ${SEND_PURPOSES.join(", ")}`);
    const email = normalizeEmail(input.email);
    const found = await this.ctx.store.users.findByEmail(email);
    // A banned user (`admin()`) gets no code, for any purpose, and the same answer as an address without one.
    const banned = found !== null && banInForce(found, this.ctx.clock.now());
    const user = banned ? null : found;
    const eligible = !banned && (user !== null || (input.purpose === "sign-in" && this.options.allowSignUp));
    await this.codes.issueTo(
      otpTarget(input.purpose, email),
      eligible ? { userId: user?.id ?? null, payload: null } : null,
      meta,
      user?.id ?? null,
    );
    return { success: true };
  }

  /** Verifies without consuming; a wrong code still counts against the row (not against the lockout). */
  async check(input: CheckOtpInput, meta: RequestMeta): Promise<{ success: true }> {
    if (!SEND_PURPOSES.includes(input.purpose))
      throw invalidField("purpose", `purpose must be one of ${SEND_PURPOSES.join(", ")}`);
    const email = normalizeEmail(input.email);
    await this.codes.verify(otpTarget(input.purpose, email), input.otp, meta, { mode: "check", lockoutKey: null });
    return { success: true };
  }

  /** Signs in (creating the user when unknown and `allowSignUp`) and issues a fresh session. */
  async signIn(input: SignInOtpInput, meta: RequestMeta): Promise<SignInOutcome> {
    const { ctx } = this;
    const email = normalizeEmail(input.email);
    // The user is looked up before the code is touched: its lockout is the account's. With sign-up off an unknown
    // email fails like a wrong password, and the record found is the one signed in; with sign-up on and no user
    // yet, the transaction inserts one (a concurrent sign-up that created it meanwhile is met as the conflict).
    const found = await ctx.store.users.findByEmail(email);
    const lockoutKey = accountLockKey(found, lockoutIdentifier({ email }));
    const known = this.options.allowSignUp ? undefined : found;
    if (known === null) {
      await ctx.lockout.assertNotLocked(codeLockKey(lockoutKey), { daily: true });
      await ctx.lockout.recordFailure(codeLockKey(lockoutKey), meta, { daily: true });
      await emit(ctx, "SignInFailed", { identifier: lockoutKey, reason: "unknown-email" }, meta);
      throw new AuthError("INVALID_CREDENTIALS", "Invalid email or code");
    }
    const t = otpTarget("sign-in", email);
    // Claimed, not yet spent: the code is consumed in the transaction of the writes it pays for (below), so a
    // failed write leaves it usable and the round trip commits once.
    const row = await this.codes.verify(t, input.otp, meta, { mode: "claim", lockoutKey });
    // The hooks run once the code proved the mailbox, before anything is written: a new email is a user about
    // to be created (and then signed in), a known one a sign-in. The user found above decides which; a sign-up
    // of the same email that commits meanwhile is met as a conflict in the transaction.
    let existing = known ?? found;
    let result: SignInOutcome;
    // The code is spent once, by the first transaction that reaches it; `spent` says this request spent it.
    let spent = false;
    // At most twice: when a sign-up of the same email commits between the hooks and the insert, the record signed in
    // is that one, which the hooks have not seen: the first transaction commits the spent code (every store can: a
    // compensating one keeps a consume anyway), and the hooks run again on that record before the second signs in.
    for (let attempt = 1; ; attempt++) {
      let signingIn: UserRecord;
      try {
        signingIn =
          existing ??
          (await ctx.hooks.beforeUserCreated(
            newVerifiedUser(ctx, email, input.name ?? null),
            "sign-in-email-otp",
            meta,
          ));
        await ctx.hooks.beforeSignIn(signingIn, "sign-in-email-otp", meta);
      } catch (error) {
        // A code a hook refused is spent: it cannot be replayed against the hook. A hook that failed (any other
        // throw) wrote nothing: the code stays usable for a retry (unless the race above spent it already).
        if (isHookRefusal(error) && !spent) await ctx.store.verifications.consume(row.id);
        throw error;
      }
      let outcome: SignInOutcome | { createdMeanwhile: UserRecord };
      try {
        outcome = await this.spendAndSignIn(existing, signingIn, row.id, spent, input.rememberMe, meta);
      } catch (error) {
        if (!(error instanceof SpentMeanwhile)) throw error;
        await this.codes.spentMeanwhile(t, row, meta);
        throw invalidOtp();
      }
      if (!("createdMeanwhile" in outcome)) {
        result = outcome;
        break;
      }
      if (attempt > 1) throw new AuthError("INTERNAL_ERROR", "The user could not be signed in");
      spent = true;
      existing = outcome.createdMeanwhile;
    }
    const userId = isChallenge(result) ? result.userId : result.user.id;
    await this.codes.verified(t, userId, meta);
    // With a second step pending (`twoFactor()`), the sign-in is announced when that step finishes.
    if (!isChallenge(result)) await emit(ctx, "UserSignedIn", { userId, method: "email-otp" }, meta);
    return result;
  }

  /**
   * Consumes an `email-verification` code and marks the email verified. `signedInAs`: the session the request
   * carried, if any; when it is this user's, the password and that session survive the proof (see proveMailbox).
   */
  async verifyEmail(
    input: { email: string; otp: string },
    meta: RequestMeta,
    signedInAs: { userId: string; sessionId: string } | null = null,
  ): Promise<{ user: UserView }> {
    return verifyEmailWithOtp(this.ctx, this.codes, input, meta, signedInAs);
  }

  /** `{success: true}` always; registered emails get a `password-reset` code. */
  requestPasswordReset(input: { email: string }, meta: RequestMeta): Promise<{ success: true }> {
    return this.send({ email: input.email, purpose: "password-reset" }, meta);
  }

  /**
   * Consumes a `password-reset` code, sets the password (creating the credential account if missing),
   * marks the email verified (the code proved the mailbox) and revokes every session of the user. The code is
   * spent last, in the transaction of the writes (a failed write leaves it usable); the sessions are revoked
   * first, so on stores that compensate instead of rolling back none survives a failure half-way.
   */
  async resetPassword(input: ResetPasswordOtpInput, meta: RequestMeta): Promise<{ success: true }> {
    return resetPasswordWithOtp(this.ctx, this.codes, input, meta);
  }

  /**
   * One transaction: the code (unless `spent` already), then a new user with its EMAIL_OTP account (or, for a known
   * user, the mailbox proof) and the session, together. A new email that a concurrent sign-up took meanwhile
   * commits only the spent code and answers that user, for the hooks to see first.
   */
  private spendAndSignIn(
    seen: UserRecord | null,
    signingIn: UserRecord,
    rowId: string,
    spent: boolean,
    rememberMe: boolean | undefined,
    meta: RequestMeta,
  ): Promise<SignInOutcome | { createdMeanwhile: UserRecord }> {
    return inTransaction(this.ctx, async (tx) => {
      // First: of two requests with the same code exactly one gets the row, and the other writes nothing.
      if (!spent && !(await tx.store.verifications.consume(rowId))) throw new SpentMeanwhile();
      let user: UserRecord;
      if (!seen) {
        // The user the hooks saw. A concurrent sign-up of the same email that committed meanwhile is met as the
        // insert's conflict (every store answers it inside the transaction): that record goes back to the hooks.
        const created = await this.createUser(tx, signingIn, meta);
        if (!created.isNew) return { createdMeanwhile: created.user };
        user = created.user;
      } else {
        user = await proveForOtp(tx, seen, meta);
      }
      return signInOrChallenge(tx, user, meta, { method: "email-otp", rememberMe: rememberMe ?? true });
    });
  }

  /** A verified user with an `EMAIL_OTP` account; when a concurrent sign-up took the email, that user. */
  private async createUser(
    ctx: AuthContext,
    user: UserRecord,
    meta: RequestMeta,
  ): Promise<{ user: UserRecord; isNew: boolean }> {
    const { email } = user;
    const created = await ctx.store.users.create(user, [newAccount(ctx, user.id, "EMAIL_OTP", null)]);
    if (created.ok) {
      await emit(ctx, "UserSignedUp", { userId: user.id, email }, meta, user.createdAt);
      return { user: created.value, isNew: true };
    }
    const existing = await ctx.store.users.findByEmail(email);
    if (!existing) throw new AuthError("INTERNAL_ERROR", "The user could not be created", { cause: created });
    return { user: existing, isNew: false };
  }
}

/** Thrown inside a sign-in's transaction (rolling it back) when a parallel request spent the claimed code first. */
class SpentMeanwhile extends Error {
  constructor() {
    super("the code was spent by a parallel request");
  }
}
