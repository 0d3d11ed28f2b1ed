import { createClient } from "@libsql/client";
import type { AuthPlugin, Store } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { useWal } from "./sqlite.ts";
import { latchkeyPlugins, loadDrizzleStore } from "./latchkey-features.ts";
import { readServerEnv, runServer } from "./shell.ts";
import { latchkeyPoolSeeder } from "./pool-seed.ts";
import { BENCH_CLIENT_ID, BENCH_CLIENT_SECRET, BENCH_PROVIDER_ID } from "./social-client.ts";

// Latchkey with the same features as the Better Auth server, each plugin enabled when this checkout exports it.
// Defaults everywhere (argon2id m=19456 KiB t=2 p=1 via @node-rs/argon2, Ed25519 JWTs with an encrypted
// private key), throttling off: the rate limiter, the password sign-ins' shared budget and the email send limits,
// as Better Auth runs with its rate limiter (which holds its own limit on OTP sends) off.
const env = readServerEnv();
const codes = new Map<string, string>();
const available = latchkeyPlugins();

const plugins: AuthPlugin[] = [];
if (available.emailOtp) plugins.push(available.emailOtp());
if (available.apiKeys) plugins.push(available.apiKeys());
if (available.jwt) plugins.push(available.jwt({ disableSettingJwtHeader: !env.jwtHeader }));
// The second-factor configuration (`BENCH_SECOND_FACTOR=1`, its own pair of servers so the other scenarios keep
// their plugins): twoFactor() and magicLink() with their defaults (TOTP SHA-1, 6 digits, 30 s, window 1).
const secondFactor =
  process.env.BENCH_SECOND_FACTOR === "1" && available.twoFactor !== null && available.magicLink !== null;
if (secondFactor && available.twoFactor && available.magicLink)
  plugins.push(available.twoFactor(), available.magicLink());

// The social sign-in configuration (`BENCH_OIDC_ISSUER`: the bench's provider, harness/social.ts): `oauth()` with one
// `oidc()` provider, discovered from the issuer; everything else its defaults.
const issuer = process.env.BENCH_OIDC_ISSUER ?? "";
const social = issuer !== "" && available.oauth !== null && available.oidc !== null;
if (social && available.oauth && available.oidc)
  plugins.push(
    available.oauth({
      providers: [
        available.oidc({
          id: BENCH_PROVIDER_ID,
          issuer,
          clientId: BENCH_CLIENT_ID,
          clientSecret: BENCH_CLIENT_SECRET,
        }),
      ],
    }),
  );

async function database(): Promise<Store> {
  if (env.store === "memory") return memoryStore();
  if (env.store === "postgres") {
    // As an application would: the URL-driven root entry migrates and opens the store with its default driver.
    const { migrateDatabase, openDrizzleStore } = await import("@latchkey/drizzle-store");
    await migrateDatabase(env.dbUrl);
    return openDrizzleStore(env.dbUrl);
  }
  const drizzle = await loadDrizzleStore();
  if (!drizzle) throw new Error("@latchkey/drizzle-store is not in this workspace");
  const client = createClient({ url: `file:${env.dbFile}` });
  await useWal(client);
  await drizzle.migrateDatabase(client);
  client.close();
  // As an application would: the store opens the file itself (WAL, synchronous=NORMAL, prepared read path).
  return drizzle.drizzleStore({ url: `file:${env.dbFile}` });
}

const store = await database();
const auth = createAuth({
  secret: env.secret,
  database: store,
  baseUrl: env.baseUrl,
  environment: "production",
  email: {
    // No email leaves the machine; codes are captured from the OtpGenerated event (as Better Auth's hook does).
    sender: { send: async () => undefined },
    // The per-recipient cooldown and budget are throttling too: off, unless the configuration measures them
    // (BENCH_LK_SEND_LIMITS, the `send-limits` rows: Latchkey's defaults against Better Auth's).
    ...(process.env.BENCH_LK_SEND_LIMITS === "1"
      ? {}
      : { resendCooldown: false, perRecipient: false, recipientCap: false }),
  },
  rateLimit: { enabled: false },
  // Throttling off includes the budget all callers share for password sign-ins (1200 a minute by default): the
  // sign-in scenario sends far more. The hash gate stays at its defaults (its queue holds the 32 connections).
  passwordHashing: { unauthenticatedBudget: false },
  plugins,
  // The cache variant of the bench: the lookup cache on, with the store's carrier (docs/cache.md).
  ...(process.env.BENCH_LK_CACHE === "1" ? { cache: {} } : {}),
});
auth.events.on("OtpGenerated", (event) => {
  codes.set(event.identifier, event.plain);
});

const STORE_DESCRIPTIONS = {
  memory: "@latchkey/memory-store",
  libsql: "@latchkey/drizzle-store opening the file itself (WAL, synchronous=NORMAL, prepared reads)",
  postgres: "@latchkey/drizzle-store from its URL (openDrizzleStore, default driver and pool)",
} as const;

/** The API-key part of `auth.api` as the bench calls it (typed loosely: the plugin may not be in this checkout). */
interface ApiKeyCalls {
  createApiKey(input: {
    userId: string;
    name: string;
    remaining: number | null;
    expiresIn: null;
    rateLimitMax: null;
    rateLimitWindow: null;
  }): Promise<{ key: string }>;
  deleteExpiredApiKeys(): Promise<{ deleted: number }>;
  verifyApiKey(input: { key: string }): Promise<{ valid: boolean }>;
}

runServer(
  env,
  (app) => {
    app.use("*", auth.middleware);
    app.route("/auth", auth.app);
  },
  {
    features: {
      name: "latchkey",
      version: "0.1.0",
      jwt: available.jwt !== null,
      apiKeys: available.apiKeys !== null,
      emailOtp: available.emailOtp !== null,
      secondFactor,
      social,
      store: STORE_DESCRIPTIONS[env.store],
      passwordHash: "argon2id m=19456 KiB t=2 p=1 (@node-rs/argon2, default)",
    },
    async createApiKeys(userId) {
      const api = auth.api as unknown as ApiKeyCalls;
      const base = { userId, expiresIn: null, rateLimitMax: null, rateLimitWindow: null } as const;
      const unlimited = await api.createApiKey({ ...base, name: "unlimited", remaining: null });
      const quota = await api.createApiKey({ ...base, name: "quota", remaining: 1_000_000_000 });
      return { unlimited: unlimited.key, quota: quota.key };
    },
    // The same server call `POST /auth/api-key/verify` makes after its body validation.
    verifyApiKey: (key) => (auth.api as unknown as ApiKeyCalls).verifyApiKey({ key }),
    otpFor: (email) => codes.get(email),
    sweeps: {
      // `auth.api.deleteExpiredApiKeys()`: every user's expired keys (POST /api-key/delete-all-expired is the
      // caller's own); one ApiKeyRevoked event per key.
      apiKeys: available.apiKeys
        ? async () => (await (auth.api as unknown as ApiKeyCalls).deleteExpiredApiKeys()).deleted
        : null,
      // The store's sweep of expired sessions, what a scheduled job of the application calls.
      // What an application schedules: `auth.api.sweep()` (batches of 1,000 rows, a turn of the event loop between
      // two); the expired sessions it removed.
      sessions: async () => (await auth.api.sweep()).sessions,
    },
    ...(secondFactor ? { seedPool: latchkeyPoolSeeder(auth, store, codes) } : {}),
  },
);
