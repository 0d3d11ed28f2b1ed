import type { EmailTemplates } from "../kernel/config.ts";

/** One outgoing email. */
export interface EmailMessage {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  /** Which template produced it (e.g. "verification", "otp-sign-in"); lets senders route or tag. */
  template: string;
}

/** The email port: one asynchronous operation. */
export interface EmailSender {
  send(message: EmailMessage): Promise<void>;
}

/**
 * The default sender: writes mail to the console. With `showBody` (what `environment: "development"` uses) it
 * prints the whole message, announcing on its first line that it does so (that is how a developer receives
 * codes locally). Otherwise it prints only the template name: no recipient (an email address is personal data), no
 * subject, no body, so no address, code or link reaches a log. Configure a real sender for production.
 *
 * @example
 * import { consoleEmailSender } from "@latchkey/core";
 * createAuth({ ..., email: { sender: consoleEmailSender({ showBody: true }) } });
 */
export function consoleEmailSender(
  options: { showBody?: boolean; log?: (line: string) => void } = {},
): EmailSender & { showBody: boolean | undefined } {
  const log = options.log ?? ((line: string) => console.log(line));
  return {
    showBody: options.showBody,
    async send(message) {
      if (options.showBody) {
        log(
          `[latchkey email] development mode: printing the whole email, codes and links included (never in production)\nto=${message.to} from=${message.from} template=${message.template}\nsubject: ${message.subject}\n\n${message.text}`,
        );
      } else {
        log(
          `[latchkey email] template=${message.template} not delivered (recipient, subject and body withheld: set environment "development" or configure a sender)`,
        );
      }
    },
  };
}

export type { EmailTemplates } from "../kernel/config.ts";

export const DEFAULT_TEMPLATES: EmailTemplates = {
  "verification.subject": "Verify your email",
  "verification.txt":
    "Confirm your email address for {{appName}} by opening this link:\n\n{{url}}\n\nThe link expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this email.",
  "verification.html":
    '<p>Confirm your email address for {{appName}}.</p><p><a href="{{url}}">Verify email</a></p><p>The link expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this email.</p>',
  "password-reset.subject": "Reset your password",
  "password-reset.txt":
    "Someone asked to reset the password of your {{appName}} account. Open this link to choose a new one:\n\n{{url}}\n\nThe link expires in {{expiresInMinutes}} minutes. If it was not you, ignore this email.",
  "password-reset.html":
    '<p>Someone asked to reset the password of your {{appName}} account.</p><p><a href="{{url}}">Choose a new password</a></p><p>The link expires in {{expiresInMinutes}} minutes. If it was not you, ignore this email.</p>',
  "existing-account.subject": "Someone tried to sign up with your email",
  "existing-account.txt":
    "Someone tried to create a {{appName}} account with your address, {{email}}. You already have an account, so nothing was changed.\n\nIf it was you, sign in instead: {{signInUrl}}\nForgot your password? Reset it from the sign-in page.\n\nIf it was not you, you can ignore this email.",
  "existing-account.html":
    '<p>Someone tried to create a {{appName}} account with your address, {{email}}. You already have an account, so nothing was changed.</p><p>If it was you, <a href="{{signInUrl}}">sign in instead</a>. Forgot your password? Reset it from the sign-in page.</p><p>If it was not you, you can ignore this email.</p>',
  "delete-account.txt":
    "Open this link to delete your {{appName}} account for good:\n\n{{url}}\n\nThe link expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this email and consider changing your password.",
  "delete-account.html":
    '<p>Open this link to delete your {{appName}} account for good.</p><p><a href="{{url}}">Delete my account</a></p><p>The link expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this email and consider changing your password.</p>',
  "email-changed.subject": "Your {{appName}} email was changed",
  "email-changed.txt":
    "The email address of your {{appName}} account was changed from {{oldEmail}} to {{newEmail}}. Pending links and codes sent to this address no longer work, and every other session was signed out. If you did not make this change, contact support at once: this address no longer receives password resets for the account.",
  "email-changed.html":
    "<p>The email address of your {{appName}} account was changed from {{oldEmail}} to {{newEmail}}.</p><p>Pending links and codes sent to this address no longer work, and every other session was signed out.</p><p>If you did not make this change, contact support at once: this address no longer receives password resets for the account.</p>",
  "organization-invitation.subject": "{{inviterName}} invited you to {{organizationName}} on {{appName}}",
  "organization-invitation.txt":
    "{{inviterName}} invited {{email}} to join {{organizationName}} on {{appName}} as {{role}}. Open this link to accept or decline:\n\n{{url}}\n\nThe invitation expires in {{expiresInHours}} hours. If you did not expect it, ignore this email.",
  "organization-invitation.html":
    '<p>{{inviterName}} invited {{email}} to join {{organizationName}} on {{appName}} as {{role}}.</p><p><a href="{{url}}">Accept or decline</a></p><p>The invitation expires in {{expiresInHours}} hours. If you did not expect it, ignore this email.</p>',
  "otp.subject": "Your {{appName}} code",
  "otp.txt":
    "Your {{appName}} code to {{action}} is {{otp}}. It expires in {{expiresInMinutes}} minutes. Do not share it.",
  "otp.html":
    '<p>Your {{appName}} code to {{action}} is</p><p style="font-size:24px;letter-spacing:4px"><strong>{{otp}}</strong></p><p>It expires in {{expiresInMinutes}} minutes. Do not share it.</p>',
};

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}

/** Fills `{{name}}` placeholders; unknown names render empty. HTML templates escape values. */
export function renderTemplate(source: string, vars: Record<string, string>, html: boolean): string {
  return source.replace(/\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g, (_, name: string) => {
    const value = vars[name] ?? "";
    return html ? escapeHtml(value) : value;
  });
}

/** Renders `<name>.subject`, `<name>.txt` and `<name>.html`, falling back to the defaults. */
export function renderEmail(
  templates: EmailTemplates,
  name: string,
  vars: Record<string, string>,
): { subject: string; text: string; html: string } {
  const pick = (suffix: string) => templates[`${name}.${suffix}`] ?? DEFAULT_TEMPLATES[`${name}.${suffix}`] ?? "";
  return {
    subject: renderTemplate(pick("subject"), vars, false),
    text: renderTemplate(pick("txt"), vars, false),
    html: renderTemplate(pick("html"), vars, true),
  };
}
