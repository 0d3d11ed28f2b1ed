import { AuthError } from "../errors/errors.ts";
import { hashSecret, randomString } from "../crypto/crypto.ts";
import { emit } from "../kernel/emit.ts";
import type { AuthContext } from "../kernel/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { TwoFactorRecord, UserRecord } from "../ports/records.ts";
import type { TwoFactorStore } from "../ports/store.ts";
import type { ResolvedTwoFactorOptions } from "./options.ts";
import { matchTotp, totpURI, type TotpParams } from "./totp.ts";
import { TotpSecretBox } from "./totp-secret.ts";

/** Recovery codes: 10 characters of an alphabet without look-alikes (about 50 bits), shown as `xxxxx-xxxxx`. */
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const RECOVERY_LENGTH = 10;

/**
 * The answer to `POST /two-factor/enable`: what the authenticator app needs, and the recovery codes, each shown
 * this once.
 *
 * @example
 * const { totpURI, secret, recoveryCodes } = await service.enable(user, meta);
 */
export interface TwoFactorSetup {
  /** `otpauth://totp/...`: what a QR code shows. */
  totpURI: string;
  /** The key in base32, for typing it in by hand. */
  secret: string;
  recoveryCodes: string[];
}

/** The lockout key of an account's second factor: counted apart from passwords and emailed codes. */
function twoFactorLockKey(userId: string): string {
  return `two-factor:user:${userId}`;
}

/** A code as typed: spaces (and a recovery code's dash) dropped, lower case. */
function normalize(code: string): string {
  return code.replace(/[\s-]/g, "").toLowerCase();
}

const invalidCode = () =>
  new AuthError("INVALID_TWO_FACTOR_CODE", "The code is wrong or was already used; check the authenticator app");
const notEnabled = () => new AuthError("TWO_FACTOR_NOT_ENABLED", "Two-factor authentication is not on");

/**
 * Authenticator-app (TOTP, RFC 6238) second factor: setup, proof of setup, recovery codes and switching off. The
 * key is stored sealed; every accepted code's time step is stored by a compare-and-set, so no code of that step or
 * an earlier one is ever accepted again; recovery codes are stored hashed and each is spent by one atomic write.
 * Wrong codes count toward the account's second-factor lockout (`two-factor:user:<id>`) and nothing else.
 *
 * @example
 * const setup = await service.enable(user, meta);
 * await service.verifySetup(user, "287082", meta);
 */
export class TwoFactorService {
  private readonly box: TotpSecretBox;
  private readonly params: TotpParams;

  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedTwoFactorOptions,
    private readonly port: TwoFactorStore,
  ) {
    this.box = new TotpSecretBox(ctx.config.secret, ctx.random);
    this.params = { digits: options.digits, period: options.period, algorithm: options.algorithm };
  }

  /** The `issuer` of the URI: the option, else the app's name. */
  get issuer(): string {
    return this.options.issuer ?? this.ctx.config.appName;
  }

  /** Whether the user's second factor is on. */
  async isEnabled(userId: string): Promise<boolean> {
    return (await this.port.find(userId))?.enabled === true;
  }

  /**
   * A new key and recovery codes, saved as a pending setup (nothing changes for sign-in until `verifySetup`); a
   * setup not yet proven is replaced. 409 `TWO_FACTOR_ALREADY_ENABLED` while two-factor is on.
   */
  async enable(user: UserRecord, _meta: RequestMeta): Promise<TwoFactorSetup> {
    const { ctx, options } = this;
    if (await this.isEnabled(user.id)) throw alreadyEnabled();
    const { key, base32 } = this.box.generate(options.algorithm);
    const recoveryCodes = this.newRecoveryCodes();
    const now = new Date(ctx.clock.now());
    const record: TwoFactorRecord = {
      userId: user.id,
      secret: await this.box.seal(user.id, key),
      enabled: false,
      lastStep: null,
      recoveryCodes: recoveryCodes.map((code) => hashSecret(normalize(code))),
      trustedAfter: null,
      createdAt: now,
      updatedAt: now,
    };
    // False: a parallel setup was proven meanwhile (or the user is gone).
    if (!(await this.port.savePending(record))) throw alreadyEnabled();
    const uri = totpURI({ ...this.params, issuer: this.issuer, account: user.email, secret: base32 });
    return { totpURI: uri, secret: base32, recoveryCodes };
  }

  /**
   * Proves the pending setup with a current code and switches two-factor on (`TwoFactorEnabled`). 400
   * `TWO_FACTOR_NOT_SET_UP` without a pending setup, 409 `TWO_FACTOR_ALREADY_ENABLED` when it is on, 400
   * `INVALID_TWO_FACTOR_CODE` for a wrong or replayed code (counted by the lockout).
   */
  async verifySetup(user: UserRecord, code: string, meta: RequestMeta): Promise<{ success: true }> {
    const record = await this.port.find(user.id);
    if (!record) throw new AuthError("TWO_FACTOR_NOT_SET_UP", "Start the setup with /two-factor/enable first");
    if (record.enabled) throw alreadyEnabled();
    await this.ctx.lockout.assertNotLocked(twoFactorLockKey(user.id));
    if (!(await this.acceptTotp(record, code, true))) await this.failed(user.id, "invalid-code", "verify-setup", meta);
    await this.ctx.lockout.reset(twoFactorLockKey(user.id));
    await emit(this.ctx, "TwoFactorEnabled", { userId: user.id }, meta);
    return { success: true };
  }

  /**
   * Switches two-factor off with a current authenticator code or an unused recovery code (`TwoFactorDisabled`,
   * and `RecoveryCodeUsed` for a recovery code). The record goes, and with it the recovery codes and every
   * trusted device.
   */
  async disable(user: UserRecord, code: string, meta: RequestMeta): Promise<{ success: true }> {
    const record = await this.port.find(user.id);
    if (!record?.enabled) throw notEnabled();
    await this.ctx.lockout.assertNotLocked(twoFactorLockKey(user.id));
    const method = await this.acceptEither(record, code);
    if (method === null) {
      const reason = /^[0-9]+$/.test(normalize(code)) ? "invalid-code" : "invalid-recovery-code";
      await this.failed(user.id, reason, "disable", meta);
    }
    await this.ctx.lockout.reset(twoFactorLockKey(user.id));
    await this.port.delete(user.id);
    const at = new Date(this.ctx.clock.now());
    if (method === "recovery-code")
      await emit(
        this.ctx,
        "RecoveryCodeUsed",
        { userId: user.id, remaining: record.recoveryCodes.length - 1 },
        meta,
        at,
      );
    await emit(this.ctx, "TwoFactorDisabled", { userId: user.id, method: method ?? "totp" }, meta, at);
    return { success: true };
  }

  /** New recovery codes, shown once; the old ones stop working at once. 400 `TWO_FACTOR_NOT_ENABLED` when off. */
  async regenerateRecoveryCodes(user: UserRecord, _meta: RequestMeta): Promise<{ recoveryCodes: string[] }> {
    const recoveryCodes = this.newRecoveryCodes();
    const hashes = recoveryCodes.map((code) => hashSecret(normalize(code)));
    if (!(await this.port.replaceRecoveryCodes(user.id, hashes, new Date(this.ctx.clock.now())))) throw notEnabled();
    return { recoveryCodes };
  }

  /** Whether `code` is a current authenticator code of a step after the last accepted one; that step is stored. */
  private async acceptTotp(record: TwoFactorRecord, code: string, enable: boolean): Promise<boolean> {
    const key = await this.box.open(record.userId, record.secret);
    const now = this.ctx.clock.now();
    const step = matchTotp(key, normalize(code), now, this.params, this.options.window, record.lastStep);
    if (step === null) return false;
    // The compare-and-set: of two requests with codes of one step (or one with an earlier step) exactly one wins.
    return this.port.acceptStep(record.userId, record.secret, step, new Date(now), { enable });
  }

  /** An authenticator code (digits only) or a recovery code: which one was accepted, or null. */
  private async acceptEither(record: TwoFactorRecord, code: string): Promise<"totp" | "recovery-code" | null> {
    const typed = normalize(code);
    if (/^[0-9]+$/.test(typed)) return (await this.acceptTotp(record, typed, false)) ? "totp" : null;
    const used = await this.port.useRecoveryCode(record.userId, hashSecret(typed), new Date(this.ctx.clock.now()));
    return used ? "recovery-code" : null;
  }

  /** Counts a wrong code toward the second-factor lockout, emits `TwoFactorFailed`, and refuses. */
  private async failed(
    userId: string,
    reason: "invalid-code" | "invalid-recovery-code",
    action: "verify-setup" | "disable",
    meta: RequestMeta,
  ): Promise<never> {
    await this.ctx.lockout.recordFailure(twoFactorLockKey(userId), meta);
    await emit(this.ctx, "TwoFactorFailed", { userId, reason, action }, meta);
    throw invalidCode();
  }

  private newRecoveryCodes(): string[] {
    return Array.from({ length: this.options.recoveryCodes }, () => {
      const raw = randomString(this.ctx.random, RECOVERY_LENGTH, RECOVERY_ALPHABET);
      return `${raw.slice(0, 5)}-${raw.slice(5)}`;
    });
  }
}

function alreadyEnabled(): AuthError {
  return new AuthError("TWO_FACTOR_ALREADY_ENABLED", "Two-factor authentication is already on");
}
