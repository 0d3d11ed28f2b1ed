import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { rejectUnknownOptions, type OptionShape } from "../config/closed-options.ts";
import { DEFAULT_TEMPLATES, type EmailTemplates } from "../email/email.ts";
import type { OtpPurpose } from "../kernel/events.ts";

/**
 * `emailOtp({...})` options.
 *
 * @example
 * const options: EmailOtpOptions = { codeLength: 8, expiresIn: "10m", allowSignUp: false, emailChange: { enabled: true } };
 */
export interface EmailOtpOptions {
  /** Digits per code, 4..10. Default 6. */
  codeLength?: number;
  /** Lifetime of each code. Default 5 minutes. */
  expiresIn?: Duration;
  /** Failed verifications before the code is destroyed. Default 3. */
  maxAttempts?: number;
  /** When false, OTP sign-in rejects unknown emails (and sends them nothing). Default true. */
  allowSignUp?: boolean;
  emailChange?: {
    /** Registers `request-email-change` and `change-email`. Default false. */
    enabled?: boolean;
    /** The request must carry an `email-verification` code of the current email. Default false. */
    verifyCurrentEmail?: boolean;
  };
  /**
   * Email overrides. `otp.subject|txt|html` apply to every purpose; `otp-<purpose>.subject|txt|html`
   * (purpose: sign-in, email-verification, password-reset, email-change) to one. Variables: `otp`, `action`,
   * `expiresInMinutes`, `appName`, `email`. They win over the same names in `email.templates`.
   */
  templates?: EmailTemplates;
}

/**
 * Purposes a client may ask a code for at `send-verification-otp` (email change has its own endpoint).
 *
 * @example
 * import { SEND_PURPOSES } from "@latchkey/core";
 * SEND_PURPOSES.includes("sign-in"); // true
 */
export const SEND_PURPOSES = ["sign-in", "email-verification", "password-reset"] as const;
/**
 * @example
 * const purpose: SendPurpose = "password-reset";
 */
export type SendPurpose = (typeof SEND_PURPOSES)[number];

const ALL_PURPOSES: readonly OtpPurpose[] = [...SEND_PURPOSES, "email-change"];

/**
 * The `{{action}}` of the `otp.*` templates, per purpose ("Your code to {{action}} is ...").
 *
 * @example
 * OTP_ACTIONS["sign-in"]; // "sign in"
 */
export const OTP_ACTIONS: Record<OtpPurpose, string> = {
  "sign-in": "sign in",
  "email-verification": "verify your email address",
  "password-reset": "reset your password",
  "email-change": "confirm your new email address",
};

/**
 * Options with defaults filled and durations in milliseconds.
 *
 * @example
 * const { codeLength, expiresInMs } = resolveEmailOtpOptions({});
 */
export interface ResolvedEmailOtpOptions {
  codeLength: number;
  expiresInMs: number;
  maxAttempts: number;
  allowSignUp: boolean;
  emailChange: { enabled: boolean; verifyCurrentEmail: boolean };
  templates: EmailTemplates;
}

/** Every key `emailOtp({...})` accepts (templates are checked by name below). A new option is one line here. */
export const EMAIL_OTP_OPTION_SHAPE: OptionShape = {
  codeLength: true,
  expiresIn: true,
  maxAttempts: true,
  allowSignUp: true,
  emailChange: { enabled: true, verifyCurrentEmail: true },
  templates: Object.fromEntries(
    ["otp", ...ALL_PURPOSES.map((p) => `otp-${p}`)].flatMap((family) =>
      ["subject", "txt", "html"].map((part) => [`${family}.${part}`, true as const]),
    ),
  ),
};

function flag(value: unknown, fallback: boolean, field: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw new AuthConfigError(field, "must be a boolean");
  return value;
}

/**
 * Validates `emailOtp()` options and fills the defaults. Throws `AuthConfigError` naming the field.
 *
 * @example
 * resolveEmailOtpOptions({ codeLength: 8 }).expiresInMs; // 300000
 */
export function resolveEmailOtpOptions(options: EmailOtpOptions = {}): ResolvedEmailOtpOptions {
  if (options === null || typeof options !== "object")
    throw new AuthConfigError("emailOtp", "options must be an object");
  rejectUnknownOptions(options, EMAIL_OTP_OPTION_SHAPE, "emailOtp");
  const codeLength = options.codeLength ?? 6;
  if (!Number.isInteger(codeLength) || codeLength < 4 || codeLength > 10)
    throw new AuthConfigError("emailOtp.codeLength", "must be 4..10");
  const maxAttempts = options.maxAttempts ?? 3;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 100)
    throw new AuthConfigError("emailOtp.maxAttempts", "must be an integer 1..100");
  const expiresInMs = parseDuration(options.expiresIn ?? "5m", "emailOtp.expiresIn");
  const templates = options.templates ?? {};
  if (templates === null || typeof templates !== "object")
    throw new AuthConfigError("emailOtp.templates", "must be an object of template sources");
  for (const [key, source] of Object.entries(templates)) {
    if (typeof source !== "string") throw new AuthConfigError(`emailOtp.templates["${key}"]`, "must be a string");
  }
  return {
    codeLength,
    expiresInMs,
    maxAttempts,
    allowSignUp: flag(options.allowSignUp, true, "emailOtp.allowSignUp"),
    emailChange: {
      enabled: flag(options.emailChange?.enabled, false, "emailOtp.emailChange.enabled"),
      verifyCurrentEmail: flag(
        options.emailChange?.verifyCurrentEmail,
        false,
        "emailOtp.emailChange.verifyCurrentEmail",
      ),
    },
    templates,
  };
}

/**
 * The template sources of each purpose, most specific first: plugin `otp-<purpose>.*`, `email.templates`
 * `otp-<purpose>.*`, plugin `otp.*`, `email.templates` `otp.*`, built-in `otp.*`. Keyed `otp-<purpose>.<part>`.
 *
 * @example
 * otpTemplateSources({ "otp-sign-in.subject": "Your sign-in code" }, {})["otp-sign-in.subject"]; // "Your sign-in code"
 */
export function otpTemplateSources(plugin: EmailTemplates, global: EmailTemplates): EmailTemplates {
  const out: EmailTemplates = {};
  for (const purpose of ALL_PURPOSES) {
    for (const part of ["subject", "txt", "html"]) {
      const specific = `otp-${purpose}.${part}`;
      const shared = `otp.${part}`;
      out[specific] =
        plugin[specific] ?? global[specific] ?? plugin[shared] ?? global[shared] ?? DEFAULT_TEMPLATES[shared] ?? "";
    }
  }
  return out;
}
