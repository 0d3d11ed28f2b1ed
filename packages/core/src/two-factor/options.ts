import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { applySchema, defaulted, optional, shapeOf, type InputOf } from "../config/schema.ts";
import type { TotpAlgorithm } from "./totp.ts";

const ALGORITHMS: readonly TotpAlgorithm[] = ["SHA1", "SHA256", "SHA512"];

const integerIn = (min: number, max: number) => (value: number, field: string) => {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new AuthConfigError(field, `must be an integer from ${min} to ${max}`);
};

/** Digits per code: 6 (what every authenticator app shows) or 8. */
export type TotpDigits = 6 | 8;

/**
 * Options with defaults filled and durations in milliseconds.
 *
 * @example
 * const { period, trustDeviceForMs } = resolveTwoFactorOptions({}); // 30, 2592000000
 */
export interface ResolvedTwoFactorOptions {
  /** The `issuer` of the `otpauth://` URI; null: the app's `appName`. */
  issuer: string | null;
  digits: TotpDigits;
  period: number;
  window: number;
  algorithm: TotpAlgorithm;
  /** How long a trusted device skips the second step; null: devices cannot be trusted. */
  trustDeviceForMs: number | null;
  recoveryCodes: number;
  /** How long a pending sign-in (after the first factor, before the second) lives. */
  pendingSignInMs: number;
  /** Wrong codes one pending sign-in may take before it dies. */
  pendingAttempts: number;
}

/** The one definition of `twoFactor({...})`'s options: type, default, check, docs row (docs/options.md). */
export const TWO_FACTOR_SCHEMA = {
  /**
   * the issuer authenticator apps show beside the account (the `otpauth://` URI's label and `issuer`)
   * @defaultValue `appName`
   */
  issuer: optional<string>({
    check: (value, field) => {
      if (typeof value !== "string" || value.trim() === "" || value.length > 64 || value.includes(":"))
        throw new AuthConfigError(field, "must be a non-empty string of at most 64 characters without ':'");
    },
  }),
  /** digits per code: 6 (every authenticator app) or 8 */
  digits: defaulted<TotpDigits>(6, {
    check: (value, field) => {
      if (value !== 6 && value !== 8) throw new AuthConfigError(field, "must be 6 or 8");
    },
  }),
  /** seconds per time step (RFC 6238's X); most apps only support 30 */
  period: defaulted<number>(30, { check: integerIn(15, 120) }),
  /** steps either side of now a code is accepted from (clock drift); a code's step is never accepted twice */
  window: defaulted<number>(1, { check: integerIn(0, 3) }),
  /** the TOTP HMAC: `"SHA1"` (every app reads it), `"SHA256"` or `"SHA512"` */
  algorithm: defaulted<TotpAlgorithm>("SHA1", {
    check: (value, field) => {
      if (!ALGORITHMS.includes(value)) throw new AuthConfigError(field, 'must be "SHA1", "SHA256" or "SHA512"');
    },
  }),
  /**
   * how long `trustDevice: true` lets a device skip the second step (1 hour..1 year), unless the user signs out
   * everywhere, resets the password or disables two-factor first; `false` for no trusted devices
   */
  trustDeviceFor: defaulted<Duration | false>("30d", {
    check: (value, field) => {
      if (value === false) return;
      const ms = parseDuration(value, field);
      if (ms < 3_600_000 || ms > 366 * 86_400_000)
        throw new AuthConfigError(field, "must be between 1 hour and 1 year");
    },
  }),
  /** single-use recovery codes made at setup and at each regeneration (4..50) */
  recoveryCodes: defaulted<number>(10, { check: integerIn(4, 50) }),
};

/**
 * `twoFactor({...})` options.
 *
 * @example
 * const options: TwoFactorOptions = { issuer: "Acme", digits: 6, period: 30, window: 1, trustDeviceFor: "30d" };
 */
export type TwoFactorOptions = InputOf<typeof TWO_FACTOR_SCHEMA>;

/** Every key `twoFactor({...})` accepts (from `TWO_FACTOR_SCHEMA`). */
export const TWO_FACTOR_OPTION_SHAPE = shapeOf(TWO_FACTOR_SCHEMA);

/** A pending sign-in lives 5 minutes and takes this many wrong codes (the "short-lived, single-use"). */
const PENDING_SIGN_IN_MS = 5 * 60_000;
const PENDING_ATTEMPTS = 5;

/**
 * Validates `twoFactor()` options and fills the defaults. Throws `AuthConfigError` naming the field.
 *
 * @example
 * resolveTwoFactorOptions({ digits: 8 }).digits; // 8
 */
export function resolveTwoFactorOptions(options: TwoFactorOptions = {}): ResolvedTwoFactorOptions {
  const o = applySchema(TWO_FACTOR_SCHEMA, options, "twoFactor");
  return {
    issuer: o.issuer ?? null,
    digits: o.digits,
    period: o.period,
    window: o.window,
    algorithm: o.algorithm,
    trustDeviceForMs: o.trustDeviceFor === false ? null : parseDuration(o.trustDeviceFor, "twoFactor.trustDeviceFor"),
    recoveryCodes: o.recoveryCodes,
    pendingSignInMs: PENDING_SIGN_IN_MS,
    pendingAttempts: PENDING_ATTEMPTS,
  };
}
