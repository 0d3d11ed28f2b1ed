import type { SendPurpose } from "./options.ts";
import { otpIdentifier, type OtpTarget } from "./otp-codes.ts";

/**
 * @example
 * const input: SendOtpInput = { email: "ada@example.com", purpose: "sign-in" };
 */
export interface SendOtpInput {
  email: string;
  purpose: SendPurpose;
}

/**
 * @example
 * const input: CheckOtpInput = { email: "ada@example.com", purpose: "sign-in", otp: "042917" };
 */
export interface CheckOtpInput {
  email: string;
  purpose: SendPurpose;
  otp: string;
}

/**
 * @example
 * const input: SignInOtpInput = { email: "ada@example.com", otp: "042917", name: "Ada" };
 */
export interface SignInOtpInput {
  email: string;
  otp: string;
  /** Used only when the sign-in creates the user. */
  name?: string | null;
  /** Default true; false gives a session of at most `session.shortExpiresIn` with a browser-session cookie. */
  rememberMe?: boolean;
}

/**
 * @example
 * const input: ResetPasswordOtpInput = { email: "ada@example.com", otp: "042917", password: "a new passphrase" };
 */
export interface ResetPasswordOtpInput {
  email: string;
  otp: string;
  password: string;
}

/** The OTP slot of a purpose for an email. */
export function otpTarget(purpose: SendPurpose, email: string): OtpTarget {
  return { purpose, identifier: otpIdentifier(purpose, email), email };
}
