import { AuthError } from "../errors/errors.ts";
import { hashSecret, randomString } from "../crypto/crypto.ts";
import { emit } from "../kernel/emit.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { TwoFactorRecord, UserRecord } from "../ports/records.ts";
import type { TwoFactorStore } from "../ports/store.ts";
import type { ResolvedTwoFactorOptions } from "./options.ts";
import { totpURI } from "./totp.ts";
import { isTotpShaped, normalizeCode, SecondFactorCodes, twoFactorLockKey } from "./codes.ts";
import { TwoFactorSignIn } from "./sign-in-step.ts";

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
  private readonly codes: SecondFactorCodes;
  /** The second sign-in step: the gate every sign-in passes, and the routes that finish a pending sign-in. */
  readonly signIn: TwoFactorSignIn;

  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedTwoFactorOptions,
    private readonly port: TwoFactorStore,
  ) {
    this.codes = new SecondFactorCodes(ctx, options, port);
    this.signIn = new TwoFactorSignIn(ctx, options, port, this.codes);
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
    const { key, base32 } = this.codes.box.generate(options.algorithm);
    const recoveryCodes = this.newRecoveryCodes();
    const now = new Date(ctx.clock.now());
    const record: TwoFactorRecord = {
      userId: user.id,
      secret: await this.codes.box.seal(user.id, key),
      enabled: false,
      lastStep: null,
      recoveryCodes: recoveryCodes.map((code) => hashSecret(normalizeCode(code))),
      trustedAfter: null,
      createdAt: now,
      updatedAt: now,
    };
    // False: a parallel setup was proven meanwhile (or the user is gone).
    if (!(await this.port.savePending(record))) throw alreadyEnabled();
    const uri = totpURI({ ...this.codes.params, issuer: this.issuer, account: user.email, secret: base32 });
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
    if (!(await this.codes.acceptTotp(record, code, true)))
      await this.codes.failed(user.id, "invalid-code", "verify-setup", meta);
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
      const reason = isTotpShaped(code) ? "invalid-code" : "invalid-recovery-code";
      await this.codes.failed(user.id, reason, "disable", meta);
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
    const hashes = recoveryCodes.map((code) => hashSecret(normalizeCode(code)));
    if (!(await this.port.replaceRecoveryCodes(user.id, hashes, new Date(this.ctx.clock.now())))) throw notEnabled();
    return { recoveryCodes };
  }

  /** An authenticator code (digits only) or a recovery code: which one was accepted, or null. */
  private async acceptEither(record: TwoFactorRecord, code: string): Promise<"totp" | "recovery-code" | null> {
    if (isTotpShaped(code)) return (await this.codes.acceptTotp(record, code, false)) ? "totp" : null;
    return (await this.codes.useRecoveryCode(record.userId, code)) ? "recovery-code" : null;
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
