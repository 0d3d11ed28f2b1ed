import { apiKeys, auditLog, emailOtp, jwt } from "@latchkey/core";
import { clientIp, createAuth, type Auth, type ExecutionContextLike } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";

/** Bindings from wrangler.toml (`[vars]`) and `wrangler secret put`. */
export interface Env {
  LATCHKEY_SECRET: string;
  LATCHKEY_BASE_URL: string;
}

// One auth per isolate, built on the first request: bindings arrive with requests, and Workers refuse random
// values at global scope. memoryStore() lives in this isolate only (lost on eviction, not shared between isolates
// or locations): demo only. In production pass drizzleStore(...) over libSQL/Turso or PostgreSQL (Hyperdrive).
let auth: Auth | undefined;

function authFor(env: Env): Auth {
  auth ??= createAuth({
    secret: env.LATCHKEY_SECRET,
    baseUrl: env.LATCHKEY_BASE_URL,
    basePath: "/auth",
    database: memoryStore(),
    // Cloudflare sets cf-connecting-ip at its edge; clients cannot forge it on a Worker.
    getClientIp: clientIp.fromCfConnectingIp,
    // Every optional feature, so the bundle report measures the full library. Email goes to the console
    // sender (the Workers log) in the background through ctx.waitUntil; pass `email: { sender }` for real mail.
    plugins: [emailOtp(), apiKeys(), jwt(), auditLog()],
  });
  return auth;
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContextLike): Promise<Response> {
    return authFor(env).handler(request, env, ctx);
  },
};
