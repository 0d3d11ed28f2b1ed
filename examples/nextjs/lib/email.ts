import { consoleEmailSender, type EmailMessage, type EmailSender } from "@latchkey/core";

/**
 * Where the app's emails go. With `EMAIL_WEBHOOK_URL` set, each message is POSTed there as JSON (swap in your
 * provider here, e.g. `resendEmailSender` from @latchkey/resend-sender); otherwise the console sender, which in
 * production prints only the recipient and template, never a code or link.
 */
export function emailSender(): EmailSender {
  const webhook = process.env.EMAIL_WEBHOOK_URL;
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
