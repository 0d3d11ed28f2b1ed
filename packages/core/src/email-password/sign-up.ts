import { AuthError } from "../errors/errors.ts";
import { randomId } from "../crypto/crypto.ts";
import { checkPasswordLength, normalizeEmail, normalizeUsername } from "../kernel/validation.ts";
import { toUserView, type SignInResult, type UserView } from "../session/session.ts";
import type { AuthContext } from "../context/context.ts";
import { inTransaction } from "../context/transaction.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { newAccount } from "../identity/accounts.ts";
import type { UserRecord } from "../ports/records.ts";
import { enforcePasswordCheck } from "../password/policy.ts";
import type { EmailVerificationService } from "../email-verification/index.ts";
import { emit } from "../kernel/emit.ts";

// Email and password sign-up: the interactive one (EmailPasswordService.signUp) and the trusted `auth.api.createUser`.

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

/** Never issued: the verification write a sign-up of a taken address makes instead of issuing a link. */
const TAKEN_SIGN_UP_IDENTIFIER = "email-verification-link:taken-address";

/**
 * Validates and inserts a user with a credential account (and, when `withSession`, its first session) in one
 * transaction, then emits `UserSignedUp`; throws on a taken username, returns null on a taken email.
 */
async function insertUser<S extends boolean>(
  ctx: AuthContext,
  input: SignUpInput,
  interactive: boolean,
  emailVerified: boolean,
  withSession: S,
  meta: RequestMeta,
): Promise<{ user: UserRecord; signIn: S extends true ? SignInResult : null; passwordHash: string } | null> {
  const { config, clock } = ctx;
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
  const passwordHash = await ctx.hasher.hash(input.password);
  const now = new Date(clock.now());
  const draft: UserRecord = {
    id: randomId(ctx.random),
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
  const user = await ctx.hooks.beforeUserCreated(draft, interactive ? "sign-up-email" : "create-user", meta);
  if (withSession) await ctx.hooks.beforeSignIn(user, "sign-up-email", meta);
  // User, credential account and first session commit together: a lost response never leaves an account
  // without the session the client was promised (its retry would get USER_ALREADY_EXISTS).
  const created = await inTransaction(ctx, async (tx) => {
    const inserted = await tx.store.users.create(user, [newAccount(ctx, user.id, "credential", passwordHash)]);
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
    await emit(ctx, "UserSignedUp", { userId: stored.id, email: stored.email }, meta, stored.createdAt);
    return { user: stored, signIn: created.signIn as S extends true ? SignInResult : null, passwordHash };
  }
  // A store names the first unique index the insert tripped, which differs between databases when both the
  // email and the username are taken. The email wins everywhere, so the answer does not depend on the store.
  if (created.conflict === "username" && !(await ctx.store.users.findByEmail(email)))
    throw new AuthError("USERNAME_TAKEN", "That username is taken");
  return null;
}

/** Interactive sign-up. With `requireVerifiedForSignIn` no session is issued and new and existing emails answer alike. */
export async function signUp(
  ctx: AuthContext,
  verification: EmailVerificationService,
  input: SignUpInput,
  meta: RequestMeta,
): Promise<SignUpResult> {
  if (input.appMetadata !== undefined)
    throw new AuthError("SERVER_ONLY_PROPERTY", "appMetadata can only be set by the server", {
      details: [{ path: "appMetadata", message: "server-only property" }],
    });
  const requireVerified = ctx.config.emailVerification.requireVerifiedForSignIn;
  const created = await insertUser(ctx, input, true, false, !requireVerified, meta);
  if (!created) {
    const email = normalizeEmail(input.email);
    await emit(ctx, "SignUpFailed", { identifier: email, reason: "email-taken" }, meta);
    if (!requireVerified) throw new AuthError("USER_ALREADY_EXISTS", "An account with this email already exists");
    // The same answer as a new sign-up (the password was hashed either way); the owner hears about it.
    await noticeExistingAccount(ctx, email, meta);
    return { success: true };
  }
  const { user, signIn } = created;
  if (signIn) {
    // This browser signed in: it is a known device of the new account from now on.
    const device = await ctx.devices.issue(user.id, created.passwordHash, null);
    return device ? { ...signIn, device } : signIn;
  }
  // The store work of a taken address's branch, step for step (issue 48 item 15): the event above is
  // `UserSignedUp`; then the notice counter, the send limits, one verification write and `OtpRequested`.
  await signUpNoticeHit(ctx, `${user.email}|signed-up`);
  await verification.sendFor(user, meta);
  return { success: true };
}

/**
 * Counts one sign-up of `email` in the notice window. Both sign-up branches hit a notice counter (the same store
 * work): a taken address its own (`email`), which allows one notice an hour; a new account a twin of it that
 * nothing reads (`<email>|signed-up`), so the owner of a fresh account still hears of the next attempt.
 */
async function signUpNoticeHit(ctx: AuthContext, key: string): Promise<number> {
  return (await ctx.store.counters.hit(`sign-up-notice:${key}`, NOTICE_WINDOW_MS, ctx.clock.now())).count;
}

/**
 * Tells the owner of an address that someone tried to sign up with it (template `existing-account`), at most
 * once per address per hour, and within the email send limits, so repeated attempts cannot flood a mailbox.
 * Sent in the background, like the verification email of a new sign-up, and after the same store work (the
 * notice counter, the send limits, a verification write, `OtpRequested`), so neither timing nor a delivery failure
 * tells the two apart. The verification write deletes a row that never exists: a pending owner's live link stays.
 */
async function noticeExistingAccount(ctx: AuthContext, email: string, meta: RequestMeta): Promise<void> {
  const notices = await signUpNoticeHit(ctx, email);
  const refused = await ctx.sendLimits.admit("verification-link", email, meta, null);
  await ctx.store.verifications.deleteByIdentifier(TAKEN_SIGN_UP_IDENTIFIER);
  await emit(ctx, "OtpRequested", { identifier: email, purpose: "email-verification-link" }, meta);
  if (refused || notices > 1) return;
  ctx.mailer.sendInBackground(meta, email, "existing-account", { email, signInUrl: ctx.config.baseUrl });
}

/** Trusted server code: create a user (username optional even with `requireUsername`); no session. */
export async function createUser(
  ctx: AuthContext,
  input: SignUpInput & { emailVerified?: boolean },
  meta: RequestMeta,
): Promise<UserView> {
  const created = await insertUser(ctx, input, false, input.emailVerified ?? false, false, meta);
  if (!created) throw new AuthError("USER_ALREADY_EXISTS", "An account with this email already exists");
  return toUserView(created.user);
}
