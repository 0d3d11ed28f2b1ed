import { banInForce } from "../ports/ban.ts";
import { AuthError } from "../errors/errors.ts";
import { randomId } from "../crypto/crypto.ts";
import {
  checkPasswordLength,
  normalizeEmail,
  normalizeUsername,
  resolveCallbackUrl,
  withQuery,
} from "../kernel/validation.ts";
import { toUserView, type SignInResult, type UserView, type ValidatedSession } from "../session/session.ts";
import { isChallenge, signInOrChallenge, type SignInOutcome } from "../session/sign-in-gate.ts";
import type { AuthContext } from "../context/context.ts";
import { inTransaction } from "../context/transaction.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { accountLockKey, lockoutIdentifier } from "../rate-limit/rate-limit.ts";
import { deviceLockKey, type KnownDevice } from "../device/device-cookies.ts";
import { proveMailbox } from "../identity/mailbox-proof.ts";
import { emitPasswordReset, newAccount } from "../identity/accounts.ts";
import type { AccountRecord, UserRecord } from "../ports/records.ts";
import { enforcePasswordCheck } from "../password/policy.ts";
import type { EmailVerificationService } from "../email-verification/index.ts";
import { emit } from "../kernel/emit.ts";

export interface SignUpInput {
  email: string;
  password: string;
  name?: string | null;
  username?: string | null;
  image?: string | null;
  metadata?: Record<string, unknown>;
  /** Server-only: `auth.api.createUser` may set it; a sign-up request naming it is 400 `SERVER_ONLY_PROPERTY`. */
  appMetadata?: Record<string, unknown>;
}

/** At most one "someone tried to sign up with your address" email per address in this window. */
const NOTICE_WINDOW_MS = 3_600_000;

export type SignUpResult = SignInResult | { success: true };

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

  /**
   * Validates and inserts a user with a credential account (and, when `withSession`, its first session) in one
   * transaction, then emits `UserSignedUp`; throws on a taken username, returns null on a taken email.
   */
  private async insertUser<S extends boolean>(
    input: SignUpInput,
    interactive: boolean,
    emailVerified: boolean,
    withSession: S,
    meta: RequestMeta,
  ): Promise<{ user: UserRecord; signIn: S extends true ? SignInResult : null; passwordHash: string } | null> {
    const { config, clock } = this.ctx;
    const email = normalizeEmail(input.email);
    checkPasswordLength(config, input.password);
    const username = input.username == null ? null : normalizeUsername(input.username);
    if (interactive && config.emailPassword.requireUsername && username === null)
      throw new AuthError("USERNAME_REQUIRED", "A username is required");
    await enforcePasswordCheck(config.emailPassword.passwordCheck, input.password, {
      id: null,
      email,
      name: input.name ?? null,
      username,
    });
    const passwordHash = await this.ctx.hasher.hash(input.password);
    const now = new Date(clock.now());
    const draft: UserRecord = {
      id: randomId(this.ctx.random),
      email,
      emailVerified,
      name: input.name ?? null,
      image: input.image ?? null,
      username,
      metadata: input.metadata ?? {},
      appMetadata: interactive ? {} : (input.appMetadata ?? {}),
      createdAt: now,
      updatedAt: now,
      banned: false,
      banReason: null,
      banExpires: null,
    };
    // The app's hooks see the user before anything is written (a refusal leaves no row behind).
    const user = await this.ctx.hooks.beforeUserCreated(draft, interactive ? "sign-up-email" : "create-user", meta);
    if (withSession) await this.ctx.hooks.beforeSignIn(user, "sign-up-email", meta);
    // User, credential account and first session commit together: a lost response never leaves an account
    // without the session the client was promised (its retry would get USER_ALREADY_EXISTS).
    const created = await inTransaction(this.ctx, async (tx) => {
      const inserted = await tx.store.users.create(user, [newAccount(this.ctx, user.id, "credential", passwordHash)]);
      if (!inserted.ok) return inserted;
      const signIn = withSession ? await tx.sessions.create(inserted.value, meta) : null;
      // Written first, checked second: on stores that compensate instead of rolling back, an OTP sign-in can prove
      // the mailbox between the insert and the session and take the account over (the password set here goes).
      // The session must not outlive that: it is taken back and the address answers as taken (invariant 4).
      if (signIn && !(await tx.store.accounts.listByUser(user.id)).some((a) => a.passwordHash === passwordHash)) {
        await tx.store.sessions.delete(signIn.session.id);
        return { ok: false as const, conflict: "email" as const };
      }
      return { ok: true as const, user: inserted.value, signIn };
    });
    if (created.ok) {
      const { user: stored } = created;
      await emit(this.ctx, "UserSignedUp", { userId: stored.id, email: stored.email }, meta, stored.createdAt);
      return { user: stored, signIn: created.signIn as S extends true ? SignInResult : null, passwordHash };
    }
    // A store names the first unique index the insert tripped, which differs between databases when both the
    // email and the username are taken. The email wins everywhere, so the answer does not depend on the store.
    if (created.conflict === "username" && !(await this.ctx.store.users.findByEmail(email)))
      throw new AuthError("USERNAME_TAKEN", "That username is taken");
    return null;
  }

  /** Interactive sign-up. With `requireVerifiedForSignIn` no session is issued and new and existing emails answer alike. */
  async signUp(input: SignUpInput, meta: RequestMeta): Promise<SignUpResult> {
    if (input.appMetadata !== undefined)
      throw new AuthError("SERVER_ONLY_PROPERTY", "appMetadata can only be set by the server", {
        details: [{ path: "appMetadata", message: "server-only property" }],
      });
    const { ctx } = this;
    const requireVerified = ctx.config.emailVerification.requireVerifiedForSignIn;
    const created = await this.insertUser(input, true, false, !requireVerified, meta);
    if (!created) {
      const email = normalizeEmail(input.email);
      await emit(ctx, "SignUpFailed", { identifier: email, reason: "email-taken" }, meta);
      if (!requireVerified) throw new AuthError("USER_ALREADY_EXISTS", "An account with this email already exists");
      // The same answer as a new sign-up (the password was hashed either way); the owner hears about it.
      await this.noticeExistingAccount(email, meta);
      return { success: true };
    }
    const { user, signIn } = created;
    if (signIn) {
      // This browser signed in: it is a known device of the new account from now on.
      const device = await this.ctx.devices.issue(user.id, created.passwordHash, null);
      return device ? { ...signIn, device } : signIn;
    }
    // The store work of a taken address's branch, step for step (issue 48 item 15): the event above is
    // `UserSignedUp`; then the notice counter, the send limits, one verification write and `OtpRequested`.
    await this.signUpNoticeHit(`${user.email}|signed-up`);
    await this.verification.sendFor(user, meta);
    return { success: true };
  }

  /**
   * Counts one sign-up of `email` in the notice window. Both sign-up branches hit a notice counter (the same store
   * work): a taken address its own (`email`), which allows one notice an hour; a new account a twin of it that
   * nothing reads (`<email>|signed-up`), so the owner of a fresh account still hears of the next attempt.
   */
  private async signUpNoticeHit(key: string): Promise<number> {
    const { ctx } = this;
    return (await ctx.store.counters.hit(`sign-up-notice:${key}`, NOTICE_WINDOW_MS, ctx.clock.now())).count;
  }

  /**
   * Tells the owner of an address that someone tried to sign up with it (template `existing-account`), at most
   * once per address per hour, and within the email send limits, so repeated attempts cannot flood a mailbox.
   * Sent in the background, like the verification email of a new sign-up, and after the same store work (the
   * notice counter, the send limits, a verification write, `OtpRequested`), so neither timing nor a delivery failure
   * tells the two apart. The verification write deletes a row that never exists: a pending owner's live link stays.
   */
  private async noticeExistingAccount(email: string, meta: RequestMeta): Promise<void> {
    const { ctx } = this;
    const notices = await this.signUpNoticeHit(email);
    const refused = await ctx.sendLimits.admit("verification-link", email, meta, null);
    await ctx.store.verifications.deleteByIdentifier(TAKEN_SIGN_UP_IDENTIFIER);
    await emit(ctx, "OtpRequested", { identifier: email, purpose: "email-verification-link" }, meta);
    if (refused || notices > 1) return;
    ctx.mailer.sendInBackground(meta, email, "existing-account", { email, signInUrl: ctx.config.baseUrl });
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
  async verifyCurrentPassword(user: UserRecord, password: string, meta: RequestMeta): Promise<boolean> {
    const { ctx } = this;
    const attempt = await ctx.lockout.attempt(accountLockKey(user, lockoutIdentifier({ email: user.email })), meta);
    const account = await credentialOf(ctx, user.id);
    let valid = false;
    if (account?.passwordHash) valid = await ctx.hasher.verify(account.passwordHash, password);
    else await ctx.burnPasswordHash(password);
    if (!valid) {
      await ctx.lockout.failed(attempt, meta);
      return false;
    }
    await ctx.lockout.succeeded(attempt);
    return true;
  }

  async changePassword(
    current: ValidatedSession,
    input: { currentPassword: string; newPassword: string; revokeOtherSessions?: boolean },
    meta: RequestMeta,
  ): Promise<void> {
    const { ctx } = this;
    checkPasswordLength(ctx.config, input.newPassword);
    await enforcePasswordCheck(ctx.config.emailPassword.passwordCheck, input.newPassword, current.userRecord);
    if (!(await this.verifyCurrentPassword(current.userRecord, input.currentPassword, meta))) {
      throw new AuthError("INVALID_PASSWORD", "The current password is wrong");
    }
    const userId = current.userRecord.id;
    const account = newAccount(ctx, userId, "credential", await ctx.hasher.hash(input.newPassword));
    // The new password and the revocation of the other sessions commit together. On stores that compensate
    // instead of rolling back, the other sessions also go before the password is written, so a failure half-way
    // never leaves a session of the old password next to the new one (invariant 4 in docs/invariants.md).
    const count = await inTransaction(ctx, async (tx) => {
      if (!input.revokeOtherSessions) {
        await tx.store.accounts.upsertPassword(userId, account);
        return null;
      }
      const before = await tx.sessions.revokeAll(userId, current.session.id);
      await tx.store.accounts.upsertPassword(userId, account);
      return before + (await tx.sessions.revokeAll(userId, current.session.id));
    });
    const at = new Date(ctx.clock.now());
    await emit(ctx, "PasswordChanged", { userId, method: "change-password" }, meta, at);
    if (count !== null) {
      await emit(ctx, "SessionRevoked", { userId, sessionId: null, reason: "password-changed", count }, meta, at);
    }
  }

  /** Emails a reset link when the email belongs to a user; answers the same either way. */
  async requestPasswordReset(
    input: { email: string; redirectTo?: string | null },
    meta: RequestMeta,
  ): Promise<{ success: true }> {
    const { ctx } = this;
    const { passwordReset } = ctx.config.emailPassword;
    const email = normalizeEmail(input.email);
    const target = resolveCallbackUrl(
      ctx.config,
      input.redirectTo,
      passwordReset.callbackUrlOverride ?? ctx.config.baseUrl + passwordReset.callbackPath,
    );
    const user = await ctx.store.users.findByEmail(email);
    const at = new Date(ctx.clock.now());
    // The same store work either way (review fix 8): one verification write and the `OtpRequested` event (an
    // audit row with auditLog()), so the answer's timing does not tell a registered address from an unknown one.
    // Past the send limits (counted for unknown addresses too, so the work and the 429 are the same): a link
    // already sent stays live.
    await ctx.sendLimits.enforce("password-reset-link", email, meta, user?.id ?? null);
    // A banned user (`admin()`) gets no link either, and the same answer.
    if (!user || banInForce(user, at)) {
      await ctx.store.verifications.deleteByIdentifier(UNKNOWN_RESET_IDENTIFIER);
      await emit(ctx, "OtpRequested", { identifier: email, purpose: "password-reset-link" }, meta, at);
      return { success: true };
    }
    const identifier = `password-reset:${user.id}`;
    const token = await ctx.secrets.issueToken(identifier, user.id, passwordReset.expiresInMs);
    await emit(ctx, "OtpRequested", { identifier: email, purpose: "password-reset-link" }, meta, at);
    await emit(ctx, "OtpGenerated", { identifier: email, purpose: "password-reset-link", plain: token }, meta, at);
    ctx.mailer.sendInBackground(meta, email, "password-reset", {
      url: withQuery(target, { token }),
      token,
      expiresInMinutes: String(Math.round(passwordReset.expiresInMs / 60000)),
    });
    return { success: true };
  }

  /**
   * Sets a new password from an emailed token and revokes every session of the user. The link proves the mailbox,
   * so a user not verified before loses what was set up before the proof (see proveMailbox). The token is spent
   * last, in the same transaction as the writes: a failed write leaves it usable for a retry; on stores that
   * compensate instead of rolling back, the sessions are revoked first, so none survives a failure half-way.
   */
  async resetPassword(input: { token: string; newPassword: string }, meta: RequestMeta): Promise<{ success: true }> {
    const { ctx } = this;
    checkPasswordLength(ctx.config, input.newPassword);
    // The token and its user are looked up before the hash, so a made-up token costs a read, not a password hash;
    // the token is spent after it, in the transaction below (a concurrent use of the same token loses there).
    const row = await ctx.secrets.findToken(input.token, "password-reset:");
    const found = row.userId ? await ctx.store.users.findById(row.userId) : null;
    if (!found) throw new AuthError("INVALID_TOKEN", "The link is invalid or has expired");
    await enforcePasswordCheck(ctx.config.emailPassword.passwordCheck, input.newPassword, found);
    const passwordHash = await ctx.hasher.hash(input.newPassword);
    const account = newAccount(ctx, found.id, "credential", passwordHash);
    const { user, count } = await inTransaction(ctx, async (tx) => {
      let revoked = await tx.sessions.revokeAll(found.id);
      const proven = await proveMailbox(tx, found, "credential", meta);
      await tx.store.accounts.upsertPassword(found.id, account);
      revoked += await tx.sessions.revokeAll(found.id);
      if (!(await tx.store.verifications.consume(row.id)))
        throw new AuthError("INVALID_TOKEN", "The link is invalid or has expired");
      return { user: proven, count: revoked };
    });
    const at = new Date(ctx.clock.now());
    // A sign-in that checked the old password and wrote its session before the commit was not visible to the
    // revocation above: it is visible now (see signIn).
    const late = await ctx.sessions.revokeAll(user.id);
    await emit(
      ctx,
      "OtpVerified",
      { identifier: user.email, purpose: "password-reset-link", userId: user.id },
      meta,
      at,
    );
    await emitPasswordReset(ctx, { userId: user.id, method: "reset-token", count: count + late, at, meta });
    return { success: true };
  }

  /** Trusted server code: create a user (username optional even with `requireUsername`); no session. */
  async createUser(input: SignUpInput & { emailVerified?: boolean }, meta: RequestMeta): Promise<UserView> {
    const created = await this.insertUser(input, false, input.emailVerified ?? false, false, meta);
    if (!created) throw new AuthError("USER_ALREADY_EXISTS", "An account with this email already exists");
    return toUserView(created.user);
  }
}

/** Never issued: the verification write an unknown address's reset request makes instead of issuing a token. */
const UNKNOWN_RESET_IDENTIFIER = "password-reset:unknown-address";

/** Never issued: the verification write a sign-up of a taken address makes instead of issuing a link. */
const TAKEN_SIGN_UP_IDENTIFIER = "email-verification-link:taken-address";

/** No user has it: the id whose credential an unknown identifier's sign-in reads (the same read as a known one). */
const NO_USER_ID = "~no-user";

/** The user's credential account (the one holding a password), if any. */
async function credentialOf(ctx: AuthContext, userId: string): Promise<AccountRecord | undefined> {
  return (await ctx.store.accounts.listByUser(userId)).find((a) => a.providerId === "credential" && a.passwordHash);
}
