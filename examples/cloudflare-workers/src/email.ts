import { consoleEmailSender, type EmailMessage, type EmailSender } from "@latchkey/core";

/**
 * Where the worker's emails go. With the `EMAIL_WEBHOOK_URL` binding set, each message is POSTed there as JSON
 * (swap in your provider here); otherwise the console sender (the Workers log), which in production prints only
 * the recipient and template, never a code or link.
 */
export function emailSender(webhook: string | undefined): EmailSender {
  if (!webhook) return consoleEmailSender();
  return {
    async send(message: EmailMessage) {
      const res = await fetch(webhook, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
      });
      if (!res.ok) throw new Error(`the email webhook answered ${res.status}`);
    },
  };
}
