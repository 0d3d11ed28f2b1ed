import { AuthError, invalidOtp } from "../errors/errors.ts";
import { constantTimeEqual, hashSecret, hmacSha256With, randomDigits } from "../crypto/crypto.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { OtpPurpose } from "../kernel/events.ts";
import type { VerificationRecord } from "../ports/records.ts";
import type { ResolvedEmailOtpOptions } from "./options.ts";
import { OTP_ACTIONS } from "./options.ts";
import { emit } from "../kernel/emit.ts";
import { codeLockKey } from "../rate-limit/rate-limit.ts";
import { otpHashKey, otpValueHash } from "./otp-hash.ts";

/**
 * One OTP slot: the row it lives in and the email events and mail are about.
 *
 * @example
 * const target: OtpTarget = { purpose: "sign-in", identifier: otpIdentifier("sign-in", "ada@example.com"), email: "ada@example.com" };
 */
export interface OtpTarget {
  purpose: OtpPurpose;
  /** Verification row identifier, e.g. `otp:sign-in:ada@example.com`. One live code per identifier. */
  identifier: string;
  /** The email the code is sent to; the `identifier` of the events (and of `getOtp`). */
  email: string;
}

/**
 * Who gets the code when the recipient is eligible.
 *
 * @example
 * const recipient: OtpRecipient = { userId: user.id, payload: null };
 */
export interface OtpRecipient {
  userId: string | null;
  /** Non-secret data bound to the code (the new email of an email change). */
  payload: string | null;
}

/**
 * How `OtpCodes.verify` treats a code.
 *
 * @example
 * const opts: VerifyOptions = { mode: "consume", lockoutKey: "email:ada@example.com", matches: (row) => row.userId === user.id };
 */
export interface VerifyOptions {
  /**
   * `check` leaves a correct code in place; `consume` deletes it (exactly one concurrent caller wins); `claim`
   * verifies like `consume` but leaves the row to the caller, who consumes it (`verifications.consume(row.id)`)
   * in the transaction of the writes the code pays for, so a failed write leaves the code usable.
   */
  mode: "check" | "consume" | "claim";
  /**
   * The account's lockout key (`user:<id>`, or `email:<email>` for an unknown address), or null (check endpoint):
   * wrong codes feed its code lockout (`code:<key>`, with the daily ceiling), never the password's.
   */
  lockoutKey: string | null;
  /** Extra binding a row must satisfy (owner, payload); a mismatch counts like a wrong code. */
  matches?: (row: VerificationRecord) => boolean;
}

/**
 * The row identifier of an OTP: `otp:<purpose>:<email>` (email change: `otp:email-change:<userId>`).
 *
 * @example
 * otpIdentifier("sign-in", "ada@example.com"); // "otp:sign-in:ada@example.com"
 */
export function otpIdentifier(purpose: OtpPurpose, key: string): string {
  return `otp:${purpose}:${key}`;
}

/**
 * The OTP row state machine over the `verifications` port: issue (rotating), check, consume, failed
 * attempts and expiry. A code is stored as HMAC-SHA-256 under a key derived from `secret` (HKDF-SHA-256), bound
 * to its row identifier: a database reader cannot test the 10^6 candidates of a 6-digit code without the secret.
 * Rows written before (plain SHA-256 of the code) keep verifying until they expire. Codes are uniform over all
 * `codeLength`-digit strings.
 *
 * @example
 * const codes = new OtpCodes(ctx, resolveEmailOtpOptions({}), templates);
 * await codes.issueTo({ purpose: "sign-in", identifier: otpIdentifier("sign-in", email), email }, { userId: null, payload: null }, meta, null);
 * const row = await codes.verify(target, "123456", meta, { mode: "consume", lockoutKey: `email:${email}` });
 */
export class OtpCodes {
  private readonly mac: (text: string) => Uint8Array;

  constructor(
    private readonly ctx: AuthContext,
    private readonly options: ResolvedEmailOtpOptions,
    private readonly templates: Record<string, string>,
  ) {
    this.mac = hmacSha256With(otpHashKey(ctx.config.secret));
  }

  /** What is stored for `code` in the row `identifier`: HMAC-SHA-256 under the derived key, base64url. */
  valueHash(identifier: string, code: string): string {
    return otpValueHash(this.mac, identifier, code);
  }

  /**
   * Constant-time: the keyed hash, else the plain SHA-256 that rows written before the keyed hash carry. The
   * second is computed only when the first differs: whether the code was right is what the answer says anyway.
   */
  private matchesCode(row: VerificationRecord, code: string): boolean {
    if (constantTimeEqual(this.valueHash(row.identifier, code), row.valueHash)) return true;
    return constantTimeEqual(hashSecret(code), row.valueHash);
  }

  /**
   * Issues and mails a fresh code when `recipient` is set (earlier codes of the target die). For an ineligible
   * recipient (null) it does the same work shape without a row, event or email, so both answers look alike.
   * `ownerId`: the account `target.email` belongs to, or null (the send limits give that account's known devices
   * their own allowance). Past the send limits: 429 `RATE_LIMITED`, eligible or not.
   */
  async issueTo(
    target: OtpTarget,
    recipient: OtpRecipient | null,
    meta: RequestMeta,
    ownerId: string | null,
  ): Promise<void> {
    const { ctx, options } = this;
    // Before eligibility is looked at, for every address (issue 50 item 4): the same counters move and the same
    // answer comes back for an address that gets a code and one that does not. A refused send issues nothing,
    // so the code already sent stays live.
    await ctx.sendLimits.enforce(`otp-${target.purpose}`, target.email, meta, ownerId);
    const plain = randomDigits(ctx.random, options.codeLength);
    const valueHash = this.valueHash(target.identifier, plain);
    const at = new Date(ctx.clock.now());
    const requested = { identifier: target.email, purpose: target.purpose };
    // The same store work either way (review fix 8): one verification write and the `OtpRequested` event (an
    // audit row with auditLog()), so the answer's timing does not tell an eligible address from another.
    if (!recipient) {
      await ctx.store.verifications.deleteByIdentifier(target.identifier);
      await emit(ctx, "OtpRequested", requested, meta, at);
      return;
    }
    await ctx.secrets.issue(target.identifier, valueHash, recipient.userId, options.expiresInMs, recipient.payload);
    await emit(ctx, "OtpRequested", requested, meta, at);
    await emit(ctx, "OtpGenerated", { identifier: target.email, purpose: target.purpose, plain }, meta, at);
    const vars = {
      otp: plain,
      action: OTP_ACTIONS[target.purpose],
      email: target.email,
      expiresInMinutes: String(Math.max(1, Math.round(options.expiresInMs / 60_000))),
    };
    ctx.mailer.sendInBackground(meta, target.email, `otp-${target.purpose}`, vars, undefined, this.templates);
  }

  /** 400 INVALID_REQUEST unless `otp` is exactly `codeLength` ASCII digits (server callers skip zod). */
  assertFormat(otp: unknown, field = "otp"): asserts otp is string {
    const n = this.options.codeLength;
    if (typeof otp !== "string" || otp.length !== n || !/^[0-9]+$/.test(otp)) {
      throw new AuthError("INVALID_REQUEST", `${field} must be a string of ${n} digits`, {
        details: [{ path: field, message: `expected ${n} digits` }],
      });
    }
  }

  /**
   * Verifies `otp` against the target's row. Throws INVALID_OTP (wrong, unknown, or a lost consume race),
   * OTP_EXPIRED (row deleted), TOO_MANY_ATTEMPTS (this failure destroyed the row) or ACCOUNT_LOCKED.
   * Returns the row (for `consume`: the row this caller deleted).
   */
  async verify(target: OtpTarget, otp: unknown, meta: RequestMeta, opts: VerifyOptions): Promise<VerificationRecord> {
    const { ctx } = this;
    this.assertFormat(otp);
    // The failures the key had before this attempt: a right code clears them, and with none there is nothing to
    // clear (a failure another request records meanwhile stays counted, the side a lockout should err on).
    // Codes have a lockout of their own (`code:<account>`): wrong passwords never block a delivered code.
    const lockKey = opts.lockoutKey === null ? null : codeLockKey(opts.lockoutKey);
    const failures = lockKey ? await ctx.lockout.assertNotLocked(lockKey, { daily: true }) : 0;
    const row = await ctx.store.verifications.findByIdentifier(target.identifier);
    if (!row) {
      // Nothing to guess against (never sent, destroyed, or consumed by a parallel request with the same code):
      // counting it would let the losers of a legitimate double-submit lock the account.
      await this.failed(target, 0, null, meta);
      throw invalidOtp();
    }
    if (row.expiresAt.getTime() <= ctx.clock.now()) {
      // By id, not identifier: a fresh code issued meanwhile must survive.
      await ctx.store.verifications.consume(row.id);
      await this.failed(target, row.attemptCount, null, meta);
      throw new AuthError("OTP_EXPIRED", "The code has expired; request a new one");
    }
    const sameCode = this.matchesCode(row, otp);
    if (!sameCode || (opts.matches && !opts.matches(row))) {
      const attempt = await ctx.store.verifications.recordFailedAttempt(row.id, this.options.maxAttempts);
      await this.failed(target, attempt?.attemptCount ?? row.attemptCount, lockKey, meta);
      if (attempt?.destroyed) throw new AuthError("TOO_MANY_ATTEMPTS", "Too many wrong codes; request a new one");
      throw invalidOtp();
    }
    if (opts.mode === "check") {
      // Read and compared above; confirmed here, after the compare, in one read of the row as it is now: a code
      // that parallel wrong checks destroyed (or a send replaced) meanwhile is not answered as valid.
      const live = await ctx.store.verifications.findByIdentifier(target.identifier);
      if (!live || live.id !== row.id || live.expiresAt.getTime() <= ctx.clock.now()) {
        await this.failed(target, row.attemptCount, null, meta);
        throw invalidOtp();
      }
      await this.verified(target, row.userId, meta);
      return live;
    }
    if (opts.mode === "claim") {
      if (lockKey && failures > 0) await ctx.lockout.reset(lockKey);
      return row;
    }
    const consumed = await ctx.store.verifications.consume(row.id);
    if (!consumed) {
      // Another request with the same code won; a replay is no guess, so the lockout is not fed.
      await this.failed(target, row.attemptCount, null, meta);
      throw invalidOtp();
    }
    if (lockKey && failures > 0) await ctx.lockout.reset(lockKey);
    return consumed;
  }

  /**
   * A claimed code (`mode: "claim"`) that another request with the same code spent first: `OtpVerifyFailed`, and
   * no lockout failure (a replay of the right code is no guess).
   */
  async spentMeanwhile(target: OtpTarget, row: VerificationRecord, meta: RequestMeta): Promise<void> {
    await this.failed(target, row.attemptCount, null, meta);
  }

  /** `OtpVerified` for a performed action (consume callers emit it once they know the user). */
  async verified(target: OtpTarget, userId: string | null, meta: RequestMeta): Promise<void> {
    await emit(this.ctx, "OtpVerified", { identifier: target.email, purpose: target.purpose, userId }, meta);
  }

  private async failed(
    target: OtpTarget,
    attemptCount: number,
    lockoutKey: string | null,
    meta: RequestMeta,
  ): Promise<void> {
    const { ctx } = this;
    await emit(ctx, "OtpVerifyFailed", { identifier: target.email, purpose: target.purpose, attemptCount }, meta);
    if (lockoutKey) await ctx.lockout.recordFailure(lockoutKey, meta, { daily: true });
  }
}
