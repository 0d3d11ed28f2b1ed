import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { applySchema, defaulted, flag, group, shapeOf, type InputOf } from "../config/schema.ts";
import { DEFAULT_TEMPLATES, type EmailTemplates } from "../email/email.ts";
import type { OtpPurpose } from "../kernel/events.ts";

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

function integerFrom(min: number, max: number, message: string) {
  return (value: number, field: string) => {
    if (!Number.isInteger(value) || value < min || value > max) throw new AuthConfigError(field, message);
  };
}

/** The one definition of `emailOtp({...})`'s options: type, default, check, docs row (docs/options.md). */
export const EMAIL_OTP_SCHEMA = {
  /** digits per code, 4..10; codes are uniform over all `codeLength`-digit strings (leading zeros kept) */
  codeLength: defaulted<number>(6, { check: integerFrom(4, 10, "must be 4..10") }),
  /** lifetime of each code; after it a new code is needed (400 `OTP_EXPIRED`) */
  expiresIn: defaulted<Duration>("5m", { check: (v, field) => void parseDuration(v, field) }),
  /** wrong tries (check and consume endpoints) before the code is destroyed (403 `TOO_MANY_ATTEMPTS`) */
  maxAttempts: defaulted<number>(3, { check: integerFrom(1, 100, "must be an integer 1..100") }),
  /** `false`: OTP sign-in rejects unknown emails (401 `INVALID_CREDENTIALS`) and sends them no code */
  allowSignUp: flag(true),
  emailChange: group({
    /** registers `POST /email-otp/request-email-change` and `POST /email-otp/change-email` (404 otherwise) */
    enabled: flag(false),
    /**
     * the change request must carry `otpForCurrent`, an `email-verification` code sent to the current email (why
     * off by default: docs/decisions/0012-email-otp.md). Either way a change kills the old address's pending links
     * and codes, signs out the other sessions and notifies the old address
     */
    verifyCurrentEmail: flag(false),
  }),
  /**
   * `otp.subject`, `otp.txt`, `otp.html` for every purpose; `otp-<purpose>.<part>` for one purpose (`sign-in`,
   * `email-verification`, `password-reset`, `email-change`). Variables: `otp`, `action`, `expiresInMinutes`,
   * `email`, `appName`. These win over the same names in `email.templates`, which win over the built-in `otp.*`.
   * @defaultValue built in
   */
  templates: defaulted<EmailTemplates>(
    {},
    {
      names: ["otp", ...ALL_PURPOSES.map((p) => `otp-${p}`)].flatMap((family) =>
        ["subject", "txt", "html"].map((part) => `${family}.${part}`),
      ),
      check: (templates, field) => {
        if (templates === null || typeof templates !== "object")
          throw new AuthConfigError(field, "must be an object of template sources");
        for (const [key, source] of Object.entries(templates))
          if (typeof source !== "string") throw new AuthConfigError(`${field}["${key}"]`, "must be a string");
      },
    },
  ),
};

/**
 * `emailOtp({...})` options.
 *
 * @example
 * const options: EmailOtpOptions = { codeLength: 8, expiresIn: "10m", allowSignUp: false, emailChange: { enabled: true } };
 */
export type EmailOtpOptions = InputOf<typeof EMAIL_OTP_SCHEMA>;

/** Every key `emailOtp({...})` accepts (from `EMAIL_OTP_SCHEMA`). */
export const EMAIL_OTP_OPTION_SHAPE = shapeOf(EMAIL_OTP_SCHEMA);

/**
 * Validates `emailOtp()` options and fills the defaults. Throws `AuthConfigError` naming the field.
 *
 * @example
 * resolveEmailOtpOptions({ codeLength: 8 }).expiresInMs; // 300000
 */
export function resolveEmailOtpOptions(options: EmailOtpOptions = {}): ResolvedEmailOtpOptions {
  const o = applySchema(EMAIL_OTP_SCHEMA, options, "emailOtp");
  return {
    codeLength: o.codeLength,
    expiresInMs: parseDuration(o.expiresIn, "emailOtp.expiresIn"),
    maxAttempts: o.maxAttempts,
    allowSignUp: o.allowSignUp,
    emailChange: { enabled: o.emailChange.enabled, verifyCurrentEmail: o.emailChange.verifyCurrentEmail },
    templates: o.templates,
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
