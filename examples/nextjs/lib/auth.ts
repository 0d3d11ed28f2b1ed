import { apiKeys, emailOtp, jwt, twoFactor } from "@latchkey/core";
import { clientIp, createAuth, type Auth, type GetClientIp } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { emailSender } from "./email";

/**
 * Where the client address for per-IP rate limits comes from. `X-Forwarded-For` is trusted only behind a proxy
 * that overwrites it: on Vercel (which sets `VERCEL=1`), or behind your own proxies when `LATCHKEY_PROXY_HOPS`
 * says how many. Bare `next start` keeps a client-sent `X-Forwarded-For` (it only fills it in when absent) and a
 * route handler cannot see the socket, so there the address is unknown: in production that would put every client
 * in one per-IP bucket (one client's failed sign-ins would lock everyone out), so production refuses to start
 * until the proxy is said; `next dev` shares one bucket, said explicitly.
 */
function clientAddress(production: boolean): { getClientIp: GetClientIp; ipless?: "shared" } {
  if (process.env.VERCEL === "1") return { getClientIp: clientIp.fromForwardedFor(1) };
  const hops = process.env.LATCHKEY_PROXY_HOPS;
  if (hops !== undefined && hops !== "") {
    const n = Number(hops);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`LATCHKEY_PROXY_HOPS must be a positive integer (got "${hops}")`);
    return { getClientIp: clientIp.fromForwardedFor(n) };
  }
  if (production)
    throw new Error(
      "Latchkey cannot tell clients apart under bare `next start`: a route handler cannot see the socket, and X-Forwarded-For is whatever the client sent. Put the app behind a proxy that overwrites X-Forwarded-For and set LATCHKEY_PROXY_HOPS to the number of such proxies (1 for one load balancer or nginx), or deploy on Vercel (VERCEL=1).",
    );
  // Said explicitly: in production Latchkey refuses requests without a client address unless `ipless` is set.
  return { getClientIp: clientIp.fromSocket, ipless: "shared" };
}

// The app reads its environment (.env.local, or the host's settings); the library never does.
function buildAuth(): Auth {
  const production = process.env.NODE_ENV === "production";
  const { getClientIp, ipless } = clientAddress(production);
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
    getClientIp,
    ...(ipless ? { rateLimit: { ipless } } : {}),
    email: { sender: emailSender() },
    plugins: [emailOtp(), apiKeys(), jwt(), twoFactor()],
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
