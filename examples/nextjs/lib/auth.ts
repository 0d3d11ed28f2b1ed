import { clientIp, createAuth, type Auth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";

// The app reads its environment (.env.local); the library never does.
function buildAuth(): Auth {
  const production = process.env.NODE_ENV === "production";
  return createAuth({
    secret: process.env.LATCHKEY_SECRET ?? "",
    baseUrl: process.env.LATCHKEY_BASE_URL ?? "http://localhost:3000",
    // The route lives at app/api/auth/[...all], so the standalone handler's prefix is /api/auth.
    basePath: "/api/auth",
    // Demo only: lost on restart and not shared between serverless instances. Use drizzleStore(...) in production.
    database: memoryStore(),
    environment: production ? "production" : "development",
    cookies: { secure: production },
    // Behind one proxy (Vercel, a load balancer) that overwrites X-Forwarded-For.
    getClientIp: clientIp.fromForwardedFor(1),
  });
}

// One instance per server process: `next dev` re-evaluates modules on every change, globalThis survives that.
const holder = globalThis as { latchkeyAuth?: Auth };

/** The app's auth: `auth.api` for server components and actions, `auth.handler` for the route. */
export const auth: Auth = (holder.latchkeyAuth ??= buildAuth());
