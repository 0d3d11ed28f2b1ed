import { apiKeys, auditLog, emailOtp, jwt } from "@latchkey/core";
import { clientIp, createAuth, type Auth, type ExecutionContextLike } from "@latchkey/hono-adapter";
import { drizzleStore, type D1DatabaseBinding } from "@latchkey/drizzle-store/d1";
import { emailSender } from "./email.ts";

/** Bindings from wrangler.toml (`[vars]`) and `wrangler secret put`. */
export interface Env {
  /** The D1 database (`[[d1_databases]]` in wrangler.toml), migrated with `wrangler d1 migrations apply`. */
  DB: D1DatabaseBinding;
  LATCHKEY_SECRET: string;
  /** Optional: the public URL, when the worker answers on more than one hostname (else the request's origin). */
  LATCHKEY_BASE_URL?: string;
  /** Optional: POST every email to this URL as JSON instead of logging it (see email.ts). */
  EMAIL_WEBHOOK_URL?: string;
}

// One auth per isolate, built on the first request: bindings arrive with requests, and Workers refuse random
// values at global scope. Everything lives in D1, so every isolate and location shares sessions, codes, rate-limit
// counters and locks.
let auth: Auth | undefined;

function authFor(request: Request, env: Env): Auth {
  auth ??= createAuth({
    secret: env.LATCHKEY_SECRET,
    // Cloudflare routes a request to the worker by its hostname, so its URL's origin is the worker's own
    // (workers.dev or your route); LATCHKEY_BASE_URL pins one when several hostnames reach the worker.
    baseUrl: env.LATCHKEY_BASE_URL || new URL(request.url).origin,
    basePath: "/auth",
    database: drizzleStore({ binding: env.DB }),
    // Cloudflare sets cf-connecting-ip at its edge; clients cannot forge it on a Worker.
    getClientIp: clientIp.fromCfConnectingIp,
    // Every optional feature, so the bundle report measures the full library. Email is sent in the background
    // through ctx.waitUntil, to the webhook when EMAIL_WEBHOOK_URL is bound, else to the Workers log.
    email: { sender: emailSender(env.EMAIL_WEBHOOK_URL) },
    plugins: [emailOtp(), apiKeys(), jwt(), auditLog()],
  });
  return auth;
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContextLike): Promise<Response> {
    return authFor(request, env).handler(request, env, ctx);
  },
};
