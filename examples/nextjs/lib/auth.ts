import { apiKeys, emailOtp, jwt } from "@latchkey/core";
import { clientIp, createAuth, type Auth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { emailSender } from "./email";

// The app reads its environment (.env.local, or the host's settings); the library never does.
function buildAuth(): Auth {
  const production = process.env.NODE_ENV === "production";
  return createAuth({
    secret: process.env.LATCHKEY_SECRET ?? "",
    baseUrl: process.env.LATCHKEY_BASE_URL ?? "http://localhost:3000",
    // The route lives at app/api/auth/[...all], so the standalone handler's prefix is /api/auth.
    basePath: "/api/auth",
    // Demo only: lost on restart and not shared between serverless instances. In production use
    // drizzleStore(...) from @latchkey/drizzle-store/postgres (or /sqlite).
    database: memoryStore(),
    environment: production ? "production" : "development",
    cookies: { secure: production },
    // Behind one proxy (Vercel, a load balancer) that overwrites X-Forwarded-For.
    getClientIp: clientIp.fromForwardedFor(1),
    email: { sender: emailSender() },
    plugins: [emailOtp(), apiKeys(), jwt()],
  });
}

// One instance per server process: `next dev` re-evaluates modules on every change, globalThis survives that.
// Built on first use, not at import: `next build` imports route modules without the runtime environment.
const holder = globalThis as { latchkeyAuth?: Auth };

/** The app's auth: `getAuth().api` for server components and actions, `getAuth().handler` for the route. */
export function getAuth(): Auth {
  holder.latchkeyAuth ??= buildAuth();
  return holder.latchkeyAuth;
}
