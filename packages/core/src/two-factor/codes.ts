import { AuthError } from "../errors/errors.ts";
import { hashSecret } from "../crypto/crypto.ts";
import { emit } from "../kernel/emit.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { TwoFactorRecord } from "../ports/records.ts";
import type { TwoFactorStore } from "../ports/store.ts";
import type { ResolvedTwoFactorOptions } from "./options.ts";
import { matchTotp, type TotpParams } from "./totp.ts";
import { TotpSecretBox } from "./totp-secret.ts";

/** The lockout key of an account's second factor: counted apart from passwords and emailed codes. */
export function twoFactorLockKey(userId: string): string {
  return `two-factor:user:${userId}`;
}

/** A code as typed: spaces (and a recovery code's dash) dropped, lower case. */
export function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, "").toLowerCase();
}

/** Whether a typed code is an authenticator code (digits only) rather than a recovery code. */
export function isTotpShaped(code: string): boolean {
  return /^[0-9]+$/.test(normalizeCode(code));
}

const invalidCode = () =>
  new AuthError("INVALID_TWO_FACTOR_CODE", "The code is wrong or was already used; check the authenticator app");

/** Where a wrong code was typed: the `action` of `TwoFactorFailed`. */
export type CodeAction = "verify-setup" | "disable" | "sign-in";

/**
 * The checks every two-factor operation shares: an authenticator code accepted at most once (its time step stored by
 * a compare-and-set), a recovery code spent by one atomic write, and wrong codes counted toward the account's
 * second-factor lockout (`two-factor:user:<id>`) and nothing else.
 *
 * @example
 * if (!(await codes.acceptTotp(record, "287082", false))) await codes.failed(user.id, "invalid-code", "sign-in", meta);
 */
export class SecondFactorCodes {
  readonly box: TotpSecretBox;
  readonly params: TotpParams;

  constructor(
    private readonly ctx: AuthContext,
    private readonly options: ResolvedTwoFactorOptions,
    private readonly port: TwoFactorStore,
  ) {
    this.box = new TotpSecretBox(ctx.config.secret, ctx.random);
    this.params = { digits: options.digits, period: options.period, algorithm: options.algorithm };
  }

  /** Whether `code` is a current authenticator code of a step after the last accepted one; that step is stored. */
  async acceptTotp(record: TwoFactorRecord, code: string, enable: boolean): Promise<boolean> {
    const key = await this.box.open(record.userId, record.secret);
    const now = this.ctx.clock.now();
    const step = matchTotp(key, normalizeCode(code), now, this.params, this.options.window, record.lastStep);
    if (step === null) return false;
    // The compare-and-set: of two requests with codes of one step (or one with an earlier step) exactly one wins.
    return this.port.acceptStep(record.userId, record.secret, step, new Date(now), { enable });
  }

  /** Whether `code` is one of the user's unused recovery codes; spent by this call (of two, exactly one wins). */
  useRecoveryCode(userId: string, code: string): Promise<boolean> {
    return this.port.useRecoveryCode(userId, hashSecret(normalizeCode(code)), new Date(this.ctx.clock.now()));
  }

  /** Counts a wrong code toward the second-factor lockout, emits `TwoFactorFailed`, and refuses. */
  async failed(
    userId: string,
    reason: "invalid-code" | "invalid-recovery-code",
    action: CodeAction,
    meta: RequestMeta,
  ): Promise<never> {
    await this.ctx.lockout.recordFailure(twoFactorLockKey(userId), meta);
    await emit(this.ctx, "TwoFactorFailed", { userId, reason, action }, meta);
    throw invalidCode();
  }
}
