import { AuthError } from "../errors/errors.ts";
import { hashSecret, randomId, randomToken } from "../crypto/crypto.ts";
import { emit } from "../kernel/emit.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { inTransaction } from "../context/transaction.ts";
import type { UserRecord, VerificationRecord } from "../ports/records.ts";
import type { Store, TwoFactorStore } from "../ports/store.ts";
import { companionCookie, type CookieDescriptor, type SignInResult } from "../session/session.ts";
import type { SecondFactorChallenge, SignInAttempt, SignInGate, SignInMethod } from "../session/sign-in-gate.ts";
import { isTotpShaped, type SecondFactorCodes, twoFactorLockKey } from "./codes.ts";
import type { ResolvedTwoFactorOptions } from "./options.ts";
import { TrustedDevices } from "./trusted-devices.ts";

/** The verification-row identifiers of pending sign-ins: `two-factor-sign-in:<random id>` (one row each). */
const PENDING_SIGN_IN_PREFIX = "two-factor-sign-in:";

/** What a pending sign-in row carries (its `payload`): how the first factor went, and the password it saw. */
interface PendingSignIn {
  method: SignInMethod;
  rememberMe: boolean;
  /** A fingerprint of the account's password hash at the first step: a change in between ends the sign-in. */
  password: string;
  /** The provider of a social sign-in. */
  providerId?: string;
}

/** A trusted-device credential: the token (for clients that keep it themselves) and its cookie. */
export interface TrustedDeviceCredential {
  token: string;
  expiresAt: string;
  cookie: CookieDescriptor;
}

/** A sign-in finished by its second step: the session, the spent pending cookie, and the device's trust if asked. */
export interface TwoFactorSignInResult extends SignInResult {
  /** Clears the pending sign-in cookie. */
  pendingCookie: CookieDescriptor;
  trustedDevice?: TrustedDeviceCredential;
}

/** How a pending sign-in is finished: `POST /two-factor/verify` or `/two-factor/verify-recovery-code`. */
export interface FinishSignInInput {
  /** The pending sign-in's token (its cookie, or the `twoFactorToken` of the first step's answer). */
  token: string;
  code: string;
  /** `/two-factor/verify` only: this device skips the second step for `trustDeviceFor`. */
  trustDevice?: boolean;
}

const invalidPending = () =>
  new AuthError("INVALID_TWO_FACTOR_SIGN_IN", "The sign-in expired or was already finished; sign in again");

function fingerprint(passwordHash: string | null): string {
  return hashSecret(`password:${passwordHash ?? ""}`);
}

async function passwordHashOf(store: Store, userId: string): Promise<string | null> {
  const accounts = await store.accounts.listByUser(userId);
  return accounts.find((a) => a.providerId === "credential" && a.passwordHash)?.passwordHash ?? null;
}

function parsePending(row: VerificationRecord): PendingSignIn | null {
  try {
    const value = JSON.parse(row.payload ?? "") as Partial<PendingSignIn>;
    if (typeof value.method !== "string" || typeof value.rememberMe !== "boolean") return null;
    if (typeof value.password !== "string") return null;
    return value as PendingSignIn;
  } catch {
    return null;
  }
}

/**
 * The second sign-in step of `twoFactor()`. As the sign-in gate it turns a sign-in of a user with two-factor on
 * into a pending sign-in (a verification row: only the token's SHA-256 stored, 5 minutes, single-use, a few wrong
 * codes), unless the request carries a live trusted-device token of the account. `finish` spends a pending sign-in
 * with an authenticator or recovery code and creates the session in the same transaction that consumes the row:
 * of two requests for one pending sign-in at most one gets a session.
 *
 * @example
 * const challenge = await step.challenge(ctx.store, user, meta, { method: "password", rememberMe: true });
 * const { session } = await step.finish({ token: challenge!.pending.token, code: "287082" }, "totp", meta);
 */
export class TwoFactorSignIn implements SignInGate {
  private readonly trust: TrustedDevices;

  constructor(
    private readonly ctx: AuthContext,
    private readonly options: ResolvedTwoFactorOptions,
    private readonly port: TwoFactorStore,
    private readonly codes: SecondFactorCodes,
  ) {
    this.trust = new TrustedDevices(ctx.config.secret);
  }

  /** The pending sign-in cookie's name: the session cookie's, `two-factor` for `session`. */
  get pendingCookieName(): string {
    return this.ctx.config.cookies.name.replace(/session$/, "two-factor");
  }

  /** The trusted-device cookie's name: the session cookie's, `trusted-device` for `session`. */
  get trustCookieName(): string {
    return this.ctx.config.cookies.name.replace(/session$/, "trusted-device");
  }

  async challenge(
    store: Store,
    user: UserRecord,
    meta: RequestMeta,
    attempt: SignInAttempt,
  ): Promise<SecondFactorChallenge | null> {
    const { ctx, options } = this;
    // Through the caller's transaction when it has one: a store with a single writer would wait on itself.
    const record = await (store.twoFactor ?? this.port).find(user.id);
    if (!record?.enabled) return null;
    const passwordHash =
      attempt.passwordHash !== undefined ? attempt.passwordHash : await passwordHashOf(store, user.id);
    const now = ctx.clock.now();
    const trusted = meta.trustedDevice;
    if (
      trusted &&
      options.trustDeviceForMs !== null &&
      this.trust.verify(trusted, user.id, { record, passwordHash }, now)
    )
      return null;
    const token = randomToken(ctx.random, 32);
    const expiresAt = new Date(now + options.pendingSignInMs);
    const pending: PendingSignIn = {
      method: attempt.method,
      rememberMe: attempt.rememberMe,
      password: fingerprint(passwordHash),
      ...(attempt.providerId === undefined ? {} : { providerId: attempt.providerId }),
    };
    await store.verifications.issue({
      id: randomId(ctx.random),
      identifier: `${PENDING_SIGN_IN_PREFIX}${randomId(ctx.random)}`,
      valueHash: hashSecret(token),
      attemptCount: 0,
      expiresAt,
      createdAt: new Date(now),
      userId: user.id,
      payload: JSON.stringify(pending),
    });
    return {
      twoFactorRequired: true,
      userId: user.id,
      pending: { token, expiresAt: expiresAt.toISOString() },
      cookie: this.cookie(this.pendingCookieName, token, Math.floor(options.pendingSignInMs / 1000)),
    };
  }

  removeSecondFactor(store: Store, userId: string): Promise<boolean> {
    return (store.twoFactor ?? this.port).delete(userId);
  }

  async forgetDevices(userId: string, at: Date): Promise<void> {
    await this.port.distrustDevices(userId, at);
  }

  /**
   * Finishes a pending sign-in with an authenticator code (`totp`) or a recovery code. A wrong code counts toward
   * the account's second-factor lockout and the pending sign-in's own guesses (it dies after
   * `pendingAttempts`): 400 `INVALID_TWO_FACTOR_CODE`. An unknown, spent, expired or exhausted pending sign-in, or
   * one whose account changed its password or switched two-factor off since: 401 `INVALID_TWO_FACTOR_SIGN_IN`.
   */
  async finish(
    input: FinishSignInInput,
    kind: "totp" | "recovery-code",
    meta: RequestMeta,
  ): Promise<TwoFactorSignInResult> {
    const { ctx } = this;
    const row = await this.findPending(input.token);
    const pending = parsePending(row);
    const userId = row.userId ?? "";
    const [user, record, passwordHash] = await Promise.all([
      ctx.store.users.findById(userId),
      this.port.find(userId),
      passwordHashOf(ctx.store, userId),
    ]);
    if (!pending || !user || !record?.enabled || fingerprint(passwordHash) !== pending.password) {
      await ctx.store.verifications.consume(row.id);
      throw invalidPending();
    }
    await ctx.lockout.assertNotLocked(twoFactorLockKey(userId));
    const accepted =
      kind === "totp"
        ? isTotpShaped(input.code) && (await this.codes.acceptTotp(record, input.code, false))
        : await this.codes.useRecoveryCode(userId, input.code);
    if (!accepted) {
      // The pending sign-in's own guesses: the row goes with the last one.
      await ctx.store.verifications.recordFailedAttempt(row.id, this.options.pendingAttempts);
      await this.codes.failed(userId, kind === "totp" ? "invalid-code" : "invalid-recovery-code", "sign-in", meta);
    }
    await ctx.lockout.reset(twoFactorLockKey(userId));
    // Consumed in the session's transaction: of two requests for one pending sign-in (two right codes, or a code
    // and a recovery code) exactly one gets a session.
    const result = await inTransaction(ctx, async (tx) => {
      if (!(await tx.store.verifications.consume(row.id))) throw invalidPending();
      return tx.sessions.create(user, meta, { rememberMe: pending.rememberMe });
    });
    const at = new Date(ctx.clock.now());
    if (kind === "recovery-code")
      await emit(ctx, "RecoveryCodeUsed", { userId, remaining: record.recoveryCodes.length - 1 }, meta, at);
    const signedIn = { userId, method: pending.method };
    await emit(
      ctx,
      "UserSignedIn",
      typeof pending.providerId === "string" ? { ...signedIn, providerId: pending.providerId } : signedIn,
      meta,
      at,
    );
    const pendingCookie = this.cookie(this.pendingCookieName, "", 0);
    const forMs = this.options.trustDeviceForMs;
    if (!input.trustDevice || forMs === null || kind !== "totp") return { ...result, pendingCookie };
    const issued = this.trust.issue(userId, { record, passwordHash }, at.getTime(), forMs);
    const cookie = this.cookie(this.trustCookieName, issued.token, Math.floor(forMs / 1000));
    return {
      ...result,
      pendingCookie,
      trustedDevice: { token: issued.token, expiresAt: issued.expiresAt.toISOString(), cookie },
    };
  }

  private async findPending(token: string): Promise<VerificationRecord> {
    try {
      return await this.ctx.secrets.findToken(token, PENDING_SIGN_IN_PREFIX);
    } catch (error) {
      if (error instanceof AuthError && error.code === "INVALID_TOKEN") throw invalidPending();
      throw error;
    }
  }

  private cookie(name: string, value: string, maxAge: number): CookieDescriptor {
    return companionCookie(this.ctx.config, name, value, maxAge);
  }
}
