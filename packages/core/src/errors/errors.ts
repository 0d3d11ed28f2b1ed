/** Every error code Latchkey can answer with. The HTTP status of each lives in one table in hono-adapter. */
export type AuthErrorCode =
  | "INVALID_REQUEST"
  | "INVALID_EMAIL"
  | "INVALID_PASSWORD"
  | "INVALID_CREDENTIALS"
  | "USER_ALREADY_EXISTS"
  | "USERNAME_TAKEN"
  | "USERNAME_REQUIRED"
  | "USERNAME_CHANGE_DISABLED"
  | "EMAIL_NOT_VERIFIED"
  | "EMAIL_TAKEN"
  | "PASSWORD_ALREADY_SET"
  | "PASSWORD_TOO_SHORT"
  | "PASSWORD_TOO_LONG"
  | "INVALID_USERNAME"
  | "NO_PASSWORD"
  | "INVALID_OTP"
  | "OTP_EXPIRED"
  | "TOO_MANY_ATTEMPTS"
  | "INVALID_TOKEN"
  | "ACCOUNT_LOCKED"
  | "RATE_LIMITED"
  | "INVALID_API_KEY"
  | "KEY_DISABLED"
  | "KEY_EXPIRED"
  | "KEY_NOT_FOUND"
  | "KEY_LOCKED"
  | "TOO_MANY_KEYS"
  | "KEY_CREATION_DISABLED"
  | "USAGE_EXCEEDED"
  | "INSUFFICIENT_PERMISSIONS"
  | "SERVER_ONLY_PROPERTY"
  | "INVALID_ORIGIN"
  | "MISSING_ORIGIN"
  | "METHOD_NOT_ALLOWED"
  | "INVALID_CALLBACK_URL"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "PAYLOAD_TOO_LARGE"
  | "NOT_FOUND"
  | "JWT_KEY_UNREADABLE"
  | "INVALID_JWT"
  | "DATABASE_UNAVAILABLE"
  | "BUSY"
  | "SESSION_NOT_FOUND"
  | "SESSION_NOT_FRESH"
  | "SIGN_UP_REJECTED"
  | "SIGN_IN_REJECTED"
  | "WEAK_PASSWORD"
  | "PASSWORD_COMPROMISED"
  | "PASSWORD_CHECK_UNAVAILABLE"
  | "INVALID_TWO_FACTOR_CODE"
  | "TWO_FACTOR_NOT_ENABLED"
  | "TWO_FACTOR_NOT_SET_UP"
  | "TWO_FACTOR_ALREADY_ENABLED"
  | "INVALID_TWO_FACTOR_SIGN_IN"
  | "PROVIDER_NOT_FOUND"
  | "OAUTH_STATE_MISMATCH"
  | "OAUTH_ACCESS_DENIED"
  | "OAUTH_PROVIDER_ERROR"
  | "OAUTH_INVALID_RESPONSE"
  | "OAUTH_EMAIL_MISSING"
  | "OAUTH_SIGN_UP_DISABLED"
  | "OAUTH_TOKEN_UNAVAILABLE"
  | "ACCOUNT_EXISTS"
  | "ACCOUNT_ALREADY_LINKED"
  | "ACCOUNT_NOT_FOUND"
  | "LAST_ACCOUNT"
  | "PASSKEY_CHALLENGE_INVALID"
  | "INVALID_PASSKEY_RESPONSE"
  | "UNKNOWN_PASSKEY"
  | "PASSKEY_COUNTER_REGRESSION"
  | "PASSKEY_ALREADY_REGISTERED"
  | "PASSKEY_NOT_FOUND"
  | "USER_BANNED"
  | "CANNOT_BAN_ADMIN"
  | "IMPERSONATION_NOT_ALLOWED"
  | "ORGANIZATION_NOT_FOUND"
  | "ORGANIZATION_SLUG_TAKEN"
  | "ORGANIZATION_CREATION_DISABLED"
  | "ORGANIZATION_CREATION_REJECTED"
  | "MEMBER_NOT_FOUND"
  | "MEMBER_ADD_REJECTED"
  | "ALREADY_A_MEMBER"
  | "MEMBERSHIP_LIMIT_REACHED"
  | "LAST_OWNER"
  | "ROLE_NOT_FOUND"
  | "INVITATION_NOT_FOUND"
  | "INVITATION_EXPIRED"
  | "INVITATION_NOT_PENDING"
  | "INVITATION_ALREADY_SENT"
  | "INVITATION_RECIPIENT_MISMATCH"
  | "INTERNAL_ERROR";

export interface AuthErrorOptions {
  cause?: unknown;
  /** Seconds until the caller may retry (lockout, rate limits). */
  retryAfter?: number;
  /** Field-level details, e.g. validation paths. Never secrets. */
  details?: unknown;
}

/**
 * The one error type of Latchkey. Core throws it; hono-adapter maps `code` to a status.
 *
 * @example
 * import { AuthError } from "@latchkey/core";
 * throw new AuthError("INVALID_CREDENTIALS", "Invalid email or password");
 */
export class AuthError extends Error {
  override readonly name = "AuthError";
  readonly code: AuthErrorCode;
  readonly retryAfter: number | undefined;
  readonly details: unknown;

  constructor(code: AuthErrorCode, message: string, options: AuthErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryAfter = options.retryAfter;
    this.details = options.details;
  }
}

/**
 * 400 `INVALID_REQUEST` about one field, with `details` naming it (the shape the route schemas answer with).
 *
 * @example
 * throw invalidField("purpose", "purpose must be one of sign-in, email-verification, password-reset");
 */
export function invalidField(path: string, message: string): AuthError {
  return new AuthError("INVALID_REQUEST", message, { details: [{ path, message }] });
}

/**
 * Thrown by `createAuth` (and plugin factories) when an option is invalid. `field` names the option.
 *
 * @example
 * import { AuthConfigError } from "@latchkey/core";
 * try { emailOtp({ codeLength: 2 }); } catch (e) { if (e instanceof AuthConfigError) console.log(e.field); }
 */
export class AuthConfigError extends Error {
  override readonly name = "AuthConfigError";
  readonly field: string;

  constructor(field: string, message: string) {
    super(`${field} ${message}`);
    this.field = field;
  }
}

/**
 * The answer to every code that cannot be used: wrong, already used, replaced by a newer one or destroyed after
 * too many tries. One message for all, because telling "no code exists" apart from "wrong code" would reveal
 * which addresses were sent one (unknown emails get none); it says what to do in every case.
 *
 * @example
 * throw invalidOtp();
 */
export function invalidOtp(): AuthError {
  return new AuthError(
    "INVALID_OTP",
    "The code is wrong or no longer valid (used, replaced or destroyed); check it, or request a new code",
  );
}

/**
 * 403 `USER_BANNED`: the user's ban is in force (`admin()`). `details.until` is when it ends (ISO time), or null for a
 * ban without an end. The admin's reason is never told.
 *
 * @example
 * if (banInForce(user, now)) throw userBanned(user);
 */
export function userBanned(user: { banExpires: Date | null }): AuthError {
  const until = user.banExpires?.toISOString() ?? null;
  return new AuthError(
    "USER_BANNED",
    until === null ? "This account is banned" : `This account is banned until ${until}`,
    { details: { until } },
  );
}
