import { parseDuration, type Duration } from "../config/duration.ts";
import { defaulted, optional, type FilledOf } from "../config/schema.ts";
import { isDuration } from "../config/checks.ts";
import { RATE_LIMIT_RULE_SCHEMA } from "../config/rate-limit-rule.ts";
import { resolveRateLimitRule, type RateLimitRule, type ResolvedConfig } from "../kernel/config.ts";
import type { EmailSender, EmailTemplates } from "./email.ts";

const TEMPLATE_PARTS = ["subject", "txt", "html"] as const;
const TEMPLATE_FAMILIES = [
  "verification",
  "password-reset",
  "existing-account",
  "otp",
  "otp-sign-in",
  "otp-email-verification",
  "otp-password-reset",
  "otp-email-change",
  "email-changed",
  "magic-link",
];
/** Names `email.templates` accepts (the deletion subject is the option `deleteAccount.subject`). */
export const EMAIL_TEMPLATE_NAMES: readonly string[] = [
  ...TEMPLATE_FAMILIES.flatMap((family) => TEMPLATE_PARTS.map((part) => `${family}.${part}`)),
  "delete-account.txt",
  "delete-account.html",
];

/** `createAuth({ email })`: who sends, from which address, with which templates, and how often. */
export const EMAIL_SCHEMA = {
  /**
   * any `{ send(message) }`; `resendEmailSender()` from `@latchkey/resend-sender`; see docs/email.md
   * @defaultValue console
   */
  sender: optional<EmailSender>(),
  /**
   * the sender address of every email
   * @defaultValue `no-reply@<baseUrl host>`
   */
  from: optional<string>(),
  /**
   * override a template by name: `verification.*`, `password-reset.*`, `existing-account.*`, `otp.*`,
   * `otp-<purpose>.*` (parts `subject`, `txt`, `html`) and `delete-account.txt`/`.html`; another name is an
   * error; names and variables in docs/email.md
   * @defaultValue built in
   */
  templates: defaulted<EmailTemplates>({}, { names: EMAIL_TEMPLATE_NAMES }),
  /**
   * emails one address may receive across every sending flow (codes, reset and verification links, email change,
   * account deletion) at the request of one network (IPv4 /24, IPv6 /48), or of the account's own known devices
   * and sessions (an allowance of their own); past it a send is 429 `RATE_LIMITED` and issues and sends nothing
   * (the code already sent stays valid); `false` for none. See docs/email.md, "Send limits"
   */
  perRecipient: defaulted<RateLimitRule | false>({ window: "15m", max: 5 }, { fields: RATE_LIMIT_RULE_SCHEMA }),
  /**
   * emails one address may receive from every network together (the account's known devices and sessions are not
   * counted and never refused); past it a send is 429 `RATE_LIMITED`; `false` for none. See docs/email.md, "Send
   * limits"
   */
  recipientCap: defaulted<RateLimitRule | false>({ window: "1h", max: 30 }, { fields: RATE_LIMIT_RULE_SCHEMA }),
  /**
   * least time between two sends of the same purpose to one address at the request of one network (or of the
   * account's known devices); a send inside it is 429 `RATE_LIMITED` and sends nothing; `false` for none
   */
  resendCooldown: defaulted<Duration | false>("60s", {
    check: (v, field) => (v === false ? undefined : isDuration(v, field)),
  }),
};

/** The email options resolved; the sender address defaults to `no-reply@` the base URL's host. */
export function resolveEmail(o: FilledOf<typeof EMAIL_SCHEMA>, hostname: string): ResolvedConfig["email"] {
  const { perRecipient, recipientCap, resendCooldown } = o;
  return {
    from: o.from ?? `no-reply@${hostname}`,
    templates: o.templates,
    perRecipient: perRecipient === false ? false : resolveRateLimitRule(perRecipient, "email.perRecipient"),
    recipientCap: recipientCap === false ? false : resolveRateLimitRule(recipientCap, "email.recipientCap"),
    resendCooldownMs: resendCooldown === false ? null : parseDuration(resendCooldown, "email.resendCooldown"),
  };
}
