import { betterAuth, type BetterAuthOptions } from "better-auth";
import { betterAuthDatabase, betterAuthPlugins } from "./better-auth-db.ts";
import { readServerEnv, runServer } from "./shell.ts";

// Better Auth 1.7.5 with the same features as the Latchkey server: email/password, email OTP, API keys, JWT.
// Everything else is its default (scrypt N=16384 r=16 p=1 via node:crypto, EdDSA/Ed25519 JWTs with an
// encrypted private key, database-backed sessions without cookie cache), throttling off.
const env = readServerEnv();
const codes = new Map<string, string>();

const baseOptions = {
  secret: env.secret,
  baseURL: env.baseUrl,
  basePath: "/auth",
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  logger: { level: "error" as const },
  plugins: betterAuthPlugins(env.jwtHeader, (email, otp) => codes.set(email, otp)),
} satisfies BetterAuthOptions;

const store =
  env.store === "memory"
    ? { kind: "memory" as const }
    : env.store === "libsql"
      ? { kind: "libsql" as const, file: env.dbFile }
      : { kind: "postgres" as const, url: env.dbUrl };
const db = await betterAuthDatabase(store, baseOptions as BetterAuthOptions);
const auth = betterAuth({ ...baseOptions, database: db.database });

runServer(
  env,
  (app) => {
    app.on(["GET", "POST"], "/auth/*", (c) => auth.handler(c.req.raw));
  },
  {
    features: {
      name: "better-auth",
      version: "1.7.5",
      jwt: true,
      apiKeys: true,
      emailOtp: true,
      store: db.description,
      passwordHash: "scrypt N=16384 r=16 p=1 (node:crypto, default)",
    },
    async createApiKeys(userId) {
      const unlimited = await auth.api.createApiKey({ body: { userId, name: "unlimited" } });
      const quota = await auth.api.createApiKey({ body: { userId, name: "quota", remaining: 1_000_000_000 } });
      return { unlimited: unlimited.key, quota: quota.key };
    },
    // Server-only in Better Auth (validates its body schema, then the lookup and writes): no HTTP route to go through.
    verifyApiKey: (key) => auth.api.verifyApiKey({ body: { key } }),
    otpFor: (email) => codes.get(email),
    // Its server-side sweep of every user's expired keys; it has no sweep for expired sessions (they are deleted
    // when a lookup finds them expired).
    sweeps: {
      async apiKeys() {
        await auth.api.deleteAllExpiredApiKeys();
        return null;
      },
      sessions: null,
    },
  },
);
