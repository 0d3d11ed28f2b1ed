import { AuthError } from "../errors/errors.ts";
import { normalizeEmail } from "../kernel/validation.ts";
import type { UserView, ValidatedSession } from "../session/session.ts";
import { isChallenge, signInOrChallenge, type SignInOutcome } from "../session/sign-in-gate.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { accountLockKey, lockoutIdentifier } from "../rate-limit/rate-limit.ts";
import { deviceLockKey, type KnownDevice } from "../device/device-cookies.ts";
import type { AccountRecord, UserRecord } from "../ports/records.ts";
import type { EmailVerificationService } from "../email-verification/index.ts";
import { emit } from "../kernel/emit.ts";
import { createUser, signUp, type SignUpInput, type SignUpResult } from "./sign-up.ts";
import {
  changePassword,
  credentialOf,
  requestPasswordReset,
  resetPassword,
  verifyCurrentPassword,
} from "./passwords.ts";

/** `rememberMe` (default true): false gives a session of at most `session.shortExpiresIn`, with a browser-session cookie. */
export type SignInInput = ({ email: string; password: string } | { username: string; password: string }) & {
  rememberMe?: boolean;
};

/** How the transport hands a password sign-in its device token and the limits that apply without one. */
export interface SignInOptions {
  /** The device token the request carried (cookie, header or body), if any. */
  deviceToken?: string | null;
  /**
   * The anonymous limits (per-address and per-network rules, the opt-in hashing budget): run only when the request
   * is not a known device of the account it names. Trusted `auth.api` calls pass none.
   */
  anonymousLimits?: () => Promise<void>;
}

/** Email and password accounts: sign-up, sign-in, sign-out, password change and token reset. */
export class EmailPasswordService {
  constructor(
    private readonly ctx: AuthContext,
    private readonly verification: EmailVerificationService,
  ) {}

  /** Interactive sign-up. With `requireVerifiedForSignIn` no session is issued and new and existing emails answer alike. */
  signUp(input: SignUpInput, meta: RequestMeta): Promise<SignUpResult> {
    return signUp(this.ctx, this.verification, input, meta);
  }

  /**
   * Password sign-in by email or username. Unknown users cost one hash, and answer like a wrong password. The
   * attempt is counted against the account's lockout before the password is checked; the session is kept only
   * when the password checked is still the account's once the session exists (a reset that overlapped the check
   * wins), and only when the user still exists (a deletion that overlapped answers 401).
   */
  async signIn(input: SignInInput, meta: RequestMeta, options: SignInOptions = {}): Promise<SignInOutcome> {
    const { ctx } = this;
    const byEmail = "email" in input;
    const value = byEmail ? normalizeEmail(input.email) : input.username.trim().toLowerCase();
    const identifier = lockoutIdentifier(byEmail ? { email: value } : { username: value });
    const user = byEmail ? await ctx.store.users.findByEmail(value) : await ctx.store.users.findByUsername(value);
    // A device cookie of this very account (signed for its id and current password, its row live) makes the
    // attempt a known device's: no anonymous limits, a lockout counted for this device alone, the hashing queue's
    // known lane. Anything else is an anonymous attempt (a junk or foreign token costs one HMAC, no store call).
    let account: AccountRecord | undefined;
    let accountRead = false;
    let device: KnownDevice | null = null;
    if (options.deviceToken && user && ctx.devices.enabled) {
      account = await credentialOf(ctx, user.id);
      accountRead = true;
      device = await ctx.devices.recognise(options.deviceToken, user.id, account?.passwordHash ?? null);
    }
    if (!device) await options.anonymousLimits?.();
    const attempt = await ctx.lockout.attempt(device ? deviceLockKey(device) : accountLockKey(user, identifier), meta);
    // Read for unknown identifiers too (issue 50 item 4): the same store reads whether or not the user exists.
    if (!accountRead) account = await credentialOf(ctx, user?.id ?? NO_USER_ID);
    const hasher = device ? ctx.knownDeviceHasher : ctx.hasher;
    let valid = false;
    if (account?.passwordHash) valid = await hasher.verify(account.passwordHash, input.password);
    else await ctx.burnPasswordHash(input.password);
    if (!user || !account?.passwordHash || !valid) {
      await ctx.lockout.failed(attempt, meta);
      await emit(ctx, "SignInFailed", { identifier, reason: "invalid-credentials" }, meta);
      throw new AuthError("INVALID_CREDENTIALS", "Invalid email or password");
    }
    await ctx.lockout.succeeded(attempt);
    if (ctx.config.emailVerification.requireVerifiedForSignIn && !user.emailVerified) {
      throw new AuthError("EMAIL_NOT_VERIFIED", "Verify your email address before signing in");
    }
    await ctx.hooks.beforeSignIn(user, "sign-in-email", meta);
    // The device cookie is rotated on use (a known device's row gets a new secret) or issued for a new device,
    // signed for the password checked above: a reset that lands later revokes it with the password. Written before
    // the session, so an account deletion that lands after the session also takes the device row (deleted with
    // the user); a sign-in that fails below takes it back.
    const issued = await ctx.devices.issue(user.id, account.passwordHash, device);
    const takeBack = async () => {
      if (issued) await ctx.devices.revoke({ userId: user.id, deviceId: issued.deviceId });
    };
    let result: SignInOutcome;
    try {
      const attempt = {
        method: "password",
        rememberMe: input.rememberMe ?? true,
        passwordHash: account.passwordHash,
      } as const;
      result = await signInOrChallenge(ctx, user, meta, attempt);
    } catch (error) {
      await takeBack();
      throw error;
    }
    // A second step first (`twoFactor()`): no session exists yet; the step refuses to finish if the password changes.
    if (isChallenge(result)) return issued ? { ...result, device: issued } : result;
    // Written first, checked second: a reset writes the password first and revokes second (and sweeps again after
    // its commit), so either the reset's revocation sees this session or this read sees the new password.
    if ((await credentialOf(ctx, user.id))?.passwordHash !== account.passwordHash) {
      await ctx.store.sessions.delete(result.session.id);
      await takeBack();
      throw new AuthError("INVALID_CREDENTIALS", "Invalid email or password");
    }
    await emit(ctx, "UserSignedIn", { userId: user.id, method: "password" }, meta);
    return issued ? { ...result, device: issued } : result;
  }

  async signOut(token: string, meta: RequestMeta): Promise<void> {
    const session = await this.ctx.sessions.revokeToken(token);
    if (session) {
      await emit(
        this.ctx,
        "SessionRevoked",
        { userId: session.userId, sessionId: session.id, reason: "sign-out", count: 1 },
        meta,
      );
    }
  }

  /**
   * Verifies the current password for change-password, verify-password and delete-account; the attempt counts
   * against the account's lockout before the password is checked.
   */
  verifyCurrentPassword(user: UserRecord, password: string, meta: RequestMeta): Promise<boolean> {
    return verifyCurrentPassword(this.ctx, user, password, meta);
  }

  /** Checks the current password, sets the new one and, when asked, revokes the other sessions in one transaction. */
  changePassword(
    current: ValidatedSession,
    input: { currentPassword: string; newPassword: string; revokeOtherSessions?: boolean },
    meta: RequestMeta,
  ): Promise<void> {
    return changePassword(this.ctx, current, input, meta);
  }

  /** Emails a reset link when the email belongs to a user; answers the same either way. */
  requestPasswordReset(
    input: { email: string; redirectTo?: string | null },
    meta: RequestMeta,
  ): Promise<{ success: true }> {
    return requestPasswordReset(this.ctx, input, meta);
  }

  /** Sets a new password from an emailed token and revokes every session of the user (see passwords.ts). */
  resetPassword(input: { token: string; newPassword: string }, meta: RequestMeta): Promise<{ success: true }> {
    return resetPassword(this.ctx, input, meta);
  }

  /** Trusted server code: create a user (username optional even with `requireUsername`); no session. */
  createUser(input: SignUpInput & { emailVerified?: boolean }, meta: RequestMeta): Promise<UserView> {
    return createUser(this.ctx, input, meta);
  }
}

/** No user has it: the id whose credential an unknown identifier's sign-in reads (the same read as a known one). */
const NO_USER_ID = "~no-user";
