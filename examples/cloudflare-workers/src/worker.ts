import { admin, apiKeys, auditLog, emailOtp, jwt, magicLink, oauth, oidc, passkeys, twoFactor } from "@latchkey/core";
import { clientIp, createAuth, type Auth, type ExecutionContextLike } from "@latchkey/hono-adapter";
import { drizzleStore, type D1DatabaseBinding } from "@latchkey/drizzle-store/d1";
import { emailSender } from "./email.ts";

/** Bindings from wrangler.toml (`[vars]`) and `wrangler secret put`. */
export interface Env {
  /** The D1 database (`[[d1_databases]]` in wrangler.toml), migrated with `wrangler d1 migrations apply`. */
  DB: D1DatabaseBinding;
  LATCHKEY_SECRET: string;
  /**
   * Required: the public URL of the app (`https://app.example`). Links in emails, their sender, JWT `iss`/`aud` and
   * the trusted origin come from it, never from the hostname a request happened to use.
   */
  LATCHKEY_BASE_URL?: string;
  /** Optional: POST every email to this URL as JSON instead of logging it (see email.ts). */
  EMAIL_WEBHOOK_URL?: string;
  /**
   * Optional, all three together: "Sign in with" an OpenID Connect provider (`oidc()`, provider id `oidc`), found by
   * discovery at this issuer; the client secret with `wrangler secret put OIDC_CLIENT_SECRET`. The provider's redirect
   * URI is `<LATCHKEY_BASE_URL>/auth/callback/oidc`.
   */
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
}

/** The social sign-in plugin when the provider is configured (all three bindings), else nothing. */
function socialSignIn(env: Env) {
  if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET) return [];
  const provider = oidc({
    id: "oidc",
    name: "OpenID",
    issuer: env.OIDC_ISSUER,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
  });
  return [oauth({ providers: [provider] })];
}

// One auth per isolate, built on the first request: bindings arrive with requests, and Workers refuse random
// values at global scope. Everything lives in D1, so every isolate and location shares sessions, codes, rate-limit
// counters and locks.
let auth: Auth | undefined;

function authFor(env: Env): Auth {
  // Without it the first request's hostname would decide the links and origins of the whole isolate.
  if (!env.LATCHKEY_BASE_URL)
    throw new Error(
      "LATCHKEY_BASE_URL is not set: add it under [vars] in wrangler.toml (or `wrangler secret put LATCHKEY_BASE_URL`)",
    );
  auth ??= createAuth({
    secret: env.LATCHKEY_SECRET,
    baseUrl: env.LATCHKEY_BASE_URL,
    basePath: "/auth",
    database: drizzleStore({ binding: env.DB }),
    // Cloudflare sets cf-connecting-ip at its edge; clients cannot forge it on a Worker.
    getClientIp: clientIp.fromCfConnectingIp,
    // Every optional feature, so the bundle report measures the full library. Email is sent in the background
    // through ctx.waitUntil, to the webhook when EMAIL_WEBHOOK_URL is bound, else to the Workers log.
    email: { sender: emailSender(env.EMAIL_WEBHOOK_URL) },
    plugins: [
      emailOtp(),
      magicLink(),
      twoFactor({ issuer: "Latchkey on Workers" }),
      apiKeys(),
      jwt(),
      auditLog(),
      // The relying party is the deployment's host; responses must come from its origin (the default).
      passkeys({
        rpId: new URL(env.LATCHKEY_BASE_URL).hostname,
        rpName: "Latchkey on Workers",
        allowPasskeyOnlyAccounts: true,
      }),
      admin(),
      ...socialSignIn(env),
    ],
  });
  return auth;
}

let reported = false;

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContextLike): Promise<Response> {
    let built: Auth;
    try {
      built = authFor(env);
    } catch (error) {
      // A deployment without its configuration serves nothing; the reason goes to the log (once per isolate).
      if (!reported) console.error(`[latchkey] ${(error as Error).message}`);
      reported = true;
      return Response.json(
        { code: "INTERNAL_ERROR", message: "The auth service is not configured" },
        { status: 500, headers: { "cache-control": "no-store" } },
      );
    }
    return built.handler(request, env, ctx);
  },
};
