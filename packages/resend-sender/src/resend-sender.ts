import { Resend } from "resend";
import { AuthConfigError, type EmailMessage, type EmailSender } from "@latchkey/core";

/** The part of the `resend` client this sender uses (lets tests or wrappers inject their own). */
export interface ResendClientLike {
  emails: Pick<Resend["emails"], "send">;
}

export interface ResendEmailSenderOptions {
  /** A Resend API key (`re_...`). Required unless `client` is given; never read from the environment. */
  apiKey?: string;
  /** A ready `Resend` client; `apiKey` and `baseUrl` are then ignored. */
  client?: ResendClientLike;
  /** The API origin. Default `https://api.resend.com`; point it at a local stand-in in tests. */
  baseUrl?: string;
}

const DEFAULT_BASE_URL = "https://api.resend.com";
const USER_AGENT = "latchkey-resend-sender/0.1.0";

// Resend tag values allow ASCII letters, digits, "_" and "-" only.
const tagValue = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 256) || "unknown";

/**
 * An `EmailSender` that delivers through Resend's HTTP API with the official `resend` package (pure
 * `fetch`, so it runs on Node, Bun, Deno and Workers). The message's template name is sent as the tag
 * `latchkey_template`. Errors name Resend's error but never include the message body.
 *
 * @example
 * import { resendEmailSender } from "@latchkey/resend-sender";
 * const auth = createAuth({
 *   secret, database, baseUrl: "https://app.example",
 *   email: { sender: resendEmailSender({ apiKey: process.env.RESEND_API_KEY! }), from: "Acme <auth@acme.example>" },
 * });
 */
export function resendEmailSender(options: ResendEmailSenderOptions): EmailSender {
  let client = options.client;
  if (!client) {
    if (typeof options.apiKey !== "string" || options.apiKey.trim() === "")
      throw new AuthConfigError("resendEmailSender.apiKey", "must be a non-empty string (or pass client)");
    const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
    try {
      new URL(baseUrl);
    } catch {
      throw new AuthConfigError("resendEmailSender.baseUrl", "must be an absolute URL");
    }
    // baseUrl and userAgent are passed explicitly so the client never falls back to RESEND_* variables.
    client = new Resend(options.apiKey, { baseUrl: baseUrl.replace(/\/$/, ""), userAgent: USER_AGENT });
  }
  const resend = client;
  return {
    async send(message: EmailMessage) {
      const { error } = await resend.emails.send({
        from: message.from,
        to: message.to,
        subject: message.subject,
        html: message.html,
        text: message.text,
        tags: [{ name: "latchkey_template", value: tagValue(message.template) }],
      });
      if (error) {
        const status = error.statusCode == null ? "" : ` (${error.statusCode})`;
        throw new Error(`Resend refused the "${message.template}" email${status}: ${error.name}: ${error.message}`);
      }
    },
  };
}
