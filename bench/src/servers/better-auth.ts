import { argon2idHasher, webCryptoRandom } from "@latchkey/core";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { betterAuthPoolSeeder } from "./pool-seed.ts";
import { betterAuthDatabase, betterAuthPlugins } from "./better-auth-db.ts";
import { readServerEnv, runServer } from "./shell.ts";

// Better Auth 1.7.5 with the same features as the Latchkey server: email/password, email OTP, API keys, JWT.
// Everything else is its default (scrypt N=16384 r=16 p=1 via node:crypto, EdDSA/Ed25519 JWTs with an
// encrypted private key, database-backed sessions without cookie cache), throttling off.
const env = readServerEnv();
const codes = new Map<string, string>();
const links = new Map<string, string>();
const secondFactor = process.env.BENCH_SECOND_FACTOR === "1";
const issuer = process.env.BENCH_OIDC_ISSUER ?? "";

// A tuned Better Auth (`BENCH_BA_VARIANT`), each measured as its own rows next to the defaults:
// - joins: `advanced.database.joins: true` (session and user in one query where its adapter supports joins);
// - cookie-cache: `session.cookieCache` on, so get-session answers from a signed cookie without a database read. Its
//   caveat: a revoked session keeps working until the cookie's maxAge ends. maxAge is 1 hour because the load
//   generator replays the seed's cookies and never stores a refreshed one (the default 5 minutes would expire mid-run);
// - argon2id: the same password hash as Latchkey (argon2id m=19456 KiB t=2 p=1, Latchkey's hasher), so sign-in
//   compares the libraries rather than two hash functions.
const variant = process.env.BENCH_BA_VARIANT ?? "";
const argon2 = argon2idHasher({ random: webCryptoRandom });
const variantOptions =
  variant === "joins"
    ? { advanced: { database: { joins: true } } }
    : variant === "cookie-cache"
      ? { session: { cookieCache: { enabled: true, maxAge: 3600 } } }
      : {};
const passwordHash =
  variant === "argon2id"
    ? "argon2id m=19456 KiB t=2 p=1 (Latchkey's hasher, variant)"
    : "scrypt N=16384 r=16 p=1 (node:crypto, default)";

const baseOptions = {
  secret: env.secret,
  baseURL: env.baseUrl,
  basePath: "/auth",
  ...variantOptions,
  emailAndPassword: {
    enabled: true,
    ...(variant === "argon2id"
      ? {
          password: {
            hash: (password: string) => argon2.hash(password),
            verify: ({ hash, password }: { hash: string; password: string }) => argon2.verify(hash, password),
          },
        }
      : {}),
  },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  logger: { level: "error" as const },
  plugins: betterAuthPlugins(
    env.jwtHeader,
    (email, otp) => codes.set(email, otp),
    secondFactor ? { onMagicLink: (email, token) => links.set(email, token) } : null,
    issuer ? { issuer } : null,
  ),
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
      secondFactor,
      social: issuer !== "",
      store: db.description,
      passwordHash,
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
      // It does not say how many rows it deleted: the expired keys are counted through its own adapter before and after.
      async apiKeys() {
        const { adapter } = await auth.$context;
        const expired = () =>
          adapter.count({
            model: "apikey",
            where: [
              { field: "expiresAt", operator: "lt", value: new Date() },
              { field: "expiresAt", operator: "ne", value: null },
            ],
          });
        const before = await expired();
        await auth.api.deleteAllExpiredApiKeys();
        return before - (await expired());
      },
      sessions: null,
    },
    ...(secondFactor ? { seedPool: betterAuthPoolSeeder(auth, links) } : {}),
  },
);
