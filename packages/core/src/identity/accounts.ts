import { accountLockKey } from "../rate-limit/rate-limit.ts";
import { randomId } from "../crypto/crypto.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { emit } from "../kernel/emit.ts";
import type { AccountRecord, ProviderId, UserRecord } from "../ports/records.ts";

/** The social fields of an account that is not a linked provider identity (a password, an email code). */
const NO_SOCIAL_FIELDS = {
  accountId: null,
  accessToken: null,
  refreshToken: null,
  idToken: null,
  accessTokenExpiresAt: null,
  refreshTokenExpiresAt: null,
  scope: null,
} as const satisfies Partial<AccountRecord>;

/** A new account of `providerId` for the user, stamped now (`passwordHash` null for passwordless providers). */
export function newAccount(
  ctx: AuthContext,
  userId: string,
  providerId: ProviderId,
  passwordHash: string | null,
): AccountRecord {
  const now = new Date(ctx.clock.now());
  return {
    id: randomId(ctx.random),
    userId,
    providerId,
    passwordHash,
    ...NO_SOCIAL_FIELDS,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The verified user a passwordless sign-in of a new email inserts (email code or magic link: the sign-in proved the
 * mailbox), stamped now, before `beforeUserCreated` may amend it.
 */
export function newVerifiedUser(ctx: AuthContext, email: string, name: string | null): UserRecord {
  return newUser(ctx, email, { emailVerified: true, name, image: null });
}

/**
 * A new user stamped now, before `beforeUserCreated` may amend it: `emailVerified` only when the sign-in proved the
 * mailbox (a code or link, or a provider that asserts the email verified).
 */
export function newUser(
  ctx: AuthContext,
  email: string,
  fields: { emailVerified: boolean; name: string | null; image: string | null },
): UserRecord {
  const now = new Date(ctx.clock.now());
  return {
    id: randomId(ctx.random),
    email,
    emailVerified: fields.emailVerified,
    name: fields.name,
    image: fields.image,
    username: null,
    metadata: {},
    appMetadata: {},
    createdAt: now,
    updatedAt: now,
    banned: false,
    banReason: null,
    banExpires: null,
  };
}

/**
 * What follows a finished password reset (emailed link or code): the account's password lockout is cleared (the
 * reset proved the mailbox and replaced the password the strangers were guessing, so the new one works at once),
 * then the events `PasswordChanged` and `SessionRevoked`.
 */
export async function emitPasswordReset(
  ctx: AuthContext,
  reset: { userId: string; method: "reset-token" | "reset-otp"; count: number; at: Date; meta: RequestMeta },
): Promise<void> {
  const { userId, method, count, at, meta } = reset;
  await ctx.lockout.forget(accountLockKey({ id: userId }, ""));
  await emit(ctx, "PasswordChanged", { userId, method }, meta, at);
  await emit(ctx, "SessionRevoked", { userId, sessionId: null, reason: "password-reset", count }, meta, at);
}
