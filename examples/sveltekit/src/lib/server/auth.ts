import { dev } from "$app/env";
import { EMAIL_WEBHOOK_URL, LATCHKEY_BASE_URL, LATCHKEY_SECRET } from "$app/env/private";
import { apiKeys, consoleEmailSender, emailOtp, jwt, type EmailSender } from "@latchkey/core";
import { createAuth, requestSession } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";

/** Where the app's emails go: POSTed as JSON to EMAIL_WEBHOOK_URL when set (swap in your provider), else the console. */
function emailSender(): EmailSender {
  const webhook = EMAIL_WEBHOOK_URL;
  if (!webhook) return consoleEmailSender();
  return {
    async send(message) {
      const res = await fetch(webhook, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
      });
      if (!res.ok) throw new Error(`the email webhook answered ${res.status}`);
    },
  };
}

function buildAuth() {
  const baseUrl = LATCHKEY_BASE_URL;
  const auth = createAuth({
    secret: LATCHKEY_SECRET ?? "",
    baseUrl,
    basePath: "/auth",
    // Demo only: lost on restart. In production use drizzleStore(...) from @latchkey/drizzle-store/postgres.
    database: memoryStore(),
    email: { sender: emailSender() },
    plugins: [emailOtp(), apiKeys(), jwt()],
    // `vite dev` is development (emails on the console, plain-HTTP cookies); a built server is production, whatever
    // its URL: never inferred from an http:// base URL.
    environment: dev ? "development" : "production",
    ...(dev ? { cookies: { secure: false } } : {}),
  });
  return { auth, sessionOf: requestSession(auth) };
}

// Built by the `init` hook when the server starts (not at import: `vite build` analyses server modules).
let built: ReturnType<typeof buildAuth> | undefined;

/** The app's auth (`latchkey().auth.api` for server-side calls) and its session lookup for the hook. */
export function latchkey(): ReturnType<typeof buildAuth> {
  built ??= buildAuth();
  return built;
}
