import { AuthError } from "../errors/errors.ts";
import { randomId } from "../crypto/crypto.ts";
import {
  checkPasswordLength,
  normalizeEmail,
  normalizeUsername,
  resolveCallbackUrl,
  withQuery,
} from "../auth/validation.ts";
import { toUserView, type SignInResult, type UserView, type ValidatedSession } from "../session/session.ts";
import type { AuthContext } from "../auth/context.ts";
import { inTransaction } from "../auth/transaction.ts";
import type { RequestMeta } from "../auth/request-meta.ts";
import { lockoutIdentifier } from "../rate-limit/rate-limit.ts";
import type { AccountRecord, ProviderId, UserRecord } from "../ports/records.ts";
import type { EmailVerificationService } from "../email-verification/email-verification.ts";

export interface SignUpInput {
  email: string;
  password: string;
  name?: string | null;
  username?: string | null;
  image?: string | null;
  metadata?: Record<string, unknown>;
}

export type SignUpResult = SignInResult | { success: true };

export type SignInInput = { email: string; password: string } | { username: string; password: string };

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
  ): Promise<{ user: UserRecord; signIn: S extends true ? SignInResult : null } | null> {
    const { config, clock } = this.ctx;
    const email = normalizeEmail(input.email);
    checkPasswordLength(config, input.password);
    const username = input.username == null ? null : normalizeUsername(input.username);
    if (interactive && config.emailPassword.requireUsername && username === null)
      throw new AuthError("USERNAME_REQUIRED", "A username is required");
    const passwordHash = await this.ctx.hasher.hash(input.password);
    const now = new Date(clock.now());
    const user: UserRecord = {
      id: randomId(this.ctx.random),
      email,
      emailVerified,
      name: input.name ?? null,
      image: input.image ?? null,
      username,
      metadata: input.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    };
    // User, credential account and first session commit together: a lost response never leaves an account
    // without the session the client was promised (its retry would get USER_ALREADY_EXISTS).
    const created = await inTransaction(this.ctx, async (tx) => {
      const inserted = await tx.store.users.create(user, [newAccount(this.ctx, user.id, "credential", passwordHash)]);
      if (!inserted.ok) return inserted;
      const signIn = withSession ? await tx.sessions.create(inserted.value, meta) : null;
      return { ok: true as const, user: inserted.value, signIn };
    });
    if (created.ok) {
      const { user: stored } = created;
      await this.ctx.events.emit("UserSignedUp", {
        userId: stored.id,
        email: stored.email,
        at: stored.createdAt,
        ip: meta.ip,
        userAgent: meta.userAgent,
      });
      return { user: stored, signIn: created.signIn as S extends true ? SignInResult : null };
    }
    if (created.conflict === "username") throw new AuthError("USERNAME_TAKEN", "That username is taken");
    return null;
  }

  /** Interactive sign-up. With `requireVerifiedForSignIn` no session is issued and new and existing emails answer alike. */
  async signUp(input: SignUpInput, meta: RequestMeta): Promise<SignUpResult> {
    const requireVerified = this.ctx.config.emailVerification.requireVerifiedForSignIn;
    const created = await this.insertUser(input, true, false, !requireVerified, meta);
    if (!created) {
      if (requireVerified) return { success: true };
      throw new AuthError("USER_ALREADY_EXISTS", "An account with this email already exists");
    }
    const { user, signIn } = created;
    if (signIn) return signIn;
    await this.verification.sendFor(user, undefined, meta);
    return { success: true };
  }

  /** Password sign-in by email or username. Unknown users cost one hash, and answer like a wrong password. */
  async signIn(input: SignInInput, meta: RequestMeta): Promise<SignInResult> {
    const { ctx } = this;
    const byEmail = "email" in input;
    const value = byEmail ? normalizeEmail(input.email) : input.username.trim().toLowerCase();
    const identifier = lockoutIdentifier(byEmail ? { email: value } : { username: value });
    await ctx.lockout.assertNotLocked(identifier);
    const user = byEmail ? await ctx.store.users.findByEmail(value) : await ctx.store.users.findByUsername(value);
    const account = user
      ? (await ctx.store.accounts.listByUser(user.id)).find((a) => a.providerId === "credential" && a.passwordHash)
      : undefined;
    let valid = false;
    if (account?.passwordHash) valid = await ctx.hasher.verify(account.passwordHash, input.password);
    else await ctx.burnPasswordHash(input.password);
    if (!user || !valid) {
      await ctx.lockout.recordFailure(identifier, meta);
      await ctx.events.emit("SignInFailed", {
        identifier,
        reason: "invalid-credentials",
        at: new Date(ctx.clock.now()),
        ip: meta.ip,
        userAgent: meta.userAgent,
      });
      throw new AuthError("INVALID_CREDENTIALS", "Invalid email or password");
    }
    await ctx.lockout.reset(identifier);
    if (ctx.config.emailVerification.requireVerifiedForSignIn && !user.emailVerified) {
      throw new AuthError("EMAIL_NOT_VERIFIED", "Verify your email address before signing in");
    }
    const result = await ctx.sessions.create(user, meta);
    await ctx.events.emit("UserSignedIn", {
      userId: user.id,
      method: "password",
      at: new Date(ctx.clock.now()),
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    return result;
  }

  async signOut(token: string, meta: RequestMeta): Promise<void> {
    const session = await this.ctx.sessions.revokeToken(token);
    if (session) {
      await this.ctx.events.emit("SessionRevoked", {
        userId: session.userId,
        sessionId: session.id,
        reason: "sign-out",
        count: 1,
        at: new Date(this.ctx.clock.now()),
        ip: meta.ip,
        userAgent: meta.userAgent,
      });
    }
  }

  /** Verifies the current password with lockout, for change-password, verify-password and delete-account. */
  async verifyCurrentPassword(user: UserRecord, password: string, meta: RequestMeta): Promise<boolean> {
    const { ctx } = this;
    const identifier = lockoutIdentifier({ email: user.email });
    await ctx.lockout.assertNotLocked(identifier);
    const account = (await ctx.store.accounts.listByUser(user.id)).find(
      (a) => a.providerId === "credential" && a.passwordHash,
    );
    let valid = false;
    if (account?.passwordHash) valid = await ctx.hasher.verify(account.passwordHash, password);
    else await ctx.burnPasswordHash(password);
    if (!valid) {
      await ctx.lockout.recordFailure(identifier, meta);
      return false;
    }
    await ctx.lockout.reset(identifier);
    return true;
  }

  async changePassword(
    current: ValidatedSession,
    input: { currentPassword: string; newPassword: string; revokeOtherSessions?: boolean },
    meta: RequestMeta,
  ): Promise<void> {
    const { ctx } = this;
    checkPasswordLength(ctx.config, input.newPassword);
    if (!(await this.verifyCurrentPassword(current.userRecord, input.currentPassword, meta))) {
      throw new AuthError("INVALID_PASSWORD", "The current password is wrong");
    }
    const userId = current.userRecord.id;
    const account = newAccount(ctx, userId, "credential", await ctx.hasher.hash(input.newPassword));
    // The new password and the revocation of the other sessions commit together.
    const count = await inTransaction(ctx, async (tx) => {
      await tx.store.accounts.upsertPassword(userId, account);
      return input.revokeOtherSessions ? tx.sessions.revokeAll(userId, current.session.id) : null;
    });
    const at = new Date(ctx.clock.now());
    await ctx.events.emit("PasswordChanged", {
      userId,
      method: "change-password",
      at,
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    if (count !== null) {
      await ctx.events.emit("SessionRevoked", {
        userId,
        sessionId: null,
        reason: "password-changed",
        count,
        at,
        ip: meta.ip,
        userAgent: meta.userAgent,
      });
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
    if (!user) return { success: true };
    // Past the recipient's budget or inside the cooldown: same answer, and the link already sent stays live.
    if (!(await ctx.sendLimits.admit("password-reset-link", email))) return { success: true };
    const identifier = `password-reset:${user.id}`;
    const token = await ctx.secrets.issueToken(identifier, user.id, passwordReset.expiresInMs);
    const at = new Date(ctx.clock.now());
    await ctx.events.emit("OtpRequested", {
      identifier: email,
      purpose: "password-reset-link",
      at,
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    await ctx.events.emit("OtpGenerated", {
      identifier: email,
      purpose: "password-reset-link",
      plain: token,
      at,
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    ctx.mailer.sendInBackground(meta, email, "password-reset", {
      url: withQuery(target, { token }),
      token,
      expiresInMinutes: String(Math.round(passwordReset.expiresInMs / 60000)),
    });
    return { success: true };
  }

  /** Sets a new password from an emailed token and revokes every session of the user. */
  async resetPassword(input: { token: string; newPassword: string }, meta: RequestMeta): Promise<{ success: true }> {
    const { ctx } = this;
    checkPasswordLength(ctx.config, input.newPassword);
    // The token is looked up before the hash, so a made-up token costs a read, not a password hash; it is
    // consumed after the hash (a concurrent use of the same token still loses there).
    const found = await ctx.secrets.findToken(input.token, "password-reset:");
    const passwordHash = await ctx.hasher.hash(input.newPassword);
    const row = await ctx.secrets.consumeFound(found);
    const user = row.userId ? await ctx.store.users.findById(row.userId) : null;
    if (!user) throw new AuthError("INVALID_TOKEN", "The link is invalid or has expired");
    const account = newAccount(ctx, user.id, "credential", passwordHash);
    const count = await inTransaction(ctx, async (tx) => {
      await tx.store.accounts.upsertPassword(user.id, account);
      return tx.sessions.revokeAll(user.id);
    });
    const at = new Date(ctx.clock.now());
    await ctx.events.emit("OtpVerified", {
      identifier: user.email,
      purpose: "password-reset-link",
      userId: user.id,
      at,
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    await emitPasswordReset(ctx, { userId: user.id, method: "reset-token", count, at, meta });
    return { success: true };
  }

  /** Trusted server code: create a user (username optional even with `requireUsername`); no session. */
  async createUser(input: SignUpInput & { emailVerified?: boolean }, meta: RequestMeta): Promise<UserView> {
    const created = await this.insertUser(input, false, input.emailVerified ?? false, false, meta);
    if (!created) throw new AuthError("USER_ALREADY_EXISTS", "An account with this email already exists");
    return toUserView(created.user);
  }
}

/** A new account of `providerId` for the user, stamped now (`passwordHash` null for passwordless providers). */
export function newAccount(
  ctx: AuthContext,
  userId: string,
  providerId: ProviderId,
  passwordHash: string | null,
): AccountRecord {
  const now = new Date(ctx.clock.now());
  return { id: randomId(ctx.random), userId, providerId, passwordHash, createdAt: now, updatedAt: now };
}

/** The events of a finished password reset (emailed link or code): `PasswordChanged`, then `SessionRevoked`. */
export async function emitPasswordReset(
  ctx: AuthContext,
  reset: { userId: string; method: "reset-token" | "reset-otp"; count: number; at: Date; meta: RequestMeta },
): Promise<void> {
  const { userId, method, count, at, meta } = reset;
  const base = { userId, at, ip: meta.ip, userAgent: meta.userAgent };
  await ctx.events.emit("PasswordChanged", { ...base, method });
  await ctx.events.emit("SessionRevoked", { ...base, sessionId: null, reason: "password-reset", count });
}
