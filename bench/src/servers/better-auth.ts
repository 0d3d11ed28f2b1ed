import { argon2idHasher, webCryptoRandom } from "@latchkey/core";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { generateRandomString, symmetricEncrypt } from "better-auth/crypto";
import { serializeSignedCookie } from "better-call";
import type { PoolItem, PoolKind } from "../harness/pool.ts";
import { SEED_PASSWORD } from "../harness/seed.ts";
import { betterAuthDatabase, betterAuthPlugins } from "./better-auth-db.ts";
import { readServerEnv, runServer } from "./shell.ts";

// Better Auth 1.7.5 with the same features as the Latchkey server: email/password, email OTP, API keys, JWT.
// Everything else is its default (scrypt N=16384 r=16 p=1 via node:crypto, EdDSA/Ed25519 JWTs with an
// encrypted private key, database-backed sessions without cookie cache), throttling off.
const env = readServerEnv();
const codes = new Map<string, string>();
const links = new Map<string, string>();
const secondFactor = process.env.BENCH_SECOND_FACTOR === "1";

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

/**
 * Two-factor users, each with one pending sign-in, written through its own adapter calls as its flows write them:
 * the user (`twoFactorEnabled: true`, verified email) and a credential account holding one scrypt hash computed once
 * for the whole pool (no hashing per user); the `twoFactor` row as `/two-factor/enable` + `/two-factor/verify-totp`
 * leave it (secret and backup codes encrypted with its `symmetricEncrypt`, `verified: true`); then what its sign-in
 * hook writes for the second step: the `2fa-<random>` verification row (value: the user id), its `2fa-attempts-`
 * row, and the signed `two_factor` cookie (better-call's own signing). The measured request is only
 * `POST /two-factor/verify-totp`.
 */
let poolPasswordHash: string | null = null;
let pooled = 0;
async function seedTwoFactor(count: number): Promise<PoolItem[]> {
  const ctx = await auth.$context;
  poolPasswordHash ??= await ctx.password.hash(SEED_PASSWORD);
  const cookieName = ctx.createAuthCookie("two_factor", { maxAge: 600 }).name;
  const items: PoolItem[] = [];
  for (let i = 0; i < count; i += 1) {
    const user = await ctx.internalAdapter.createUser(
      {
        email: `tf-${process.pid}-${(pooled += 1)}@bench.test`,
        name: "Bench User",
        emailVerified: true,
        twoFactorEnabled: true,
      },
      { method: "email-password" },
    );
    await ctx.internalAdapter.linkAccount({
      userId: user.id,
      providerId: "credential",
      accountId: user.id,
      password: poolPasswordHash,
    });
    const secret = generateRandomString(32);
    const backupCodes = Array.from({ length: 10 }, () => generateRandomString(10, "a-z", "0-9"));
    await ctx.adapter.create({
      model: "twoFactor",
      data: {
        secret: await symmetricEncrypt({ key: ctx.secretConfig, data: secret }),
        backupCodes: await symmetricEncrypt({ key: ctx.secretConfig, data: JSON.stringify(backupCodes) }),
        userId: user.id,
        verified: true,
      },
    });
    const identifier = `2fa-${generateRandomString(20)}`;
    const expiresAt = new Date(Date.now() + 600_000);
    await ctx.internalAdapter.createVerificationValue({ value: user.id, identifier, expiresAt });
    await ctx.internalAdapter.createVerificationValue({
      value: "0",
      identifier: `2fa-attempts-${identifier}`,
      expiresAt,
    });
    const cookie = (await serializeSignedCookie(cookieName, identifier, ctx.secret)).split(";")[0] ?? "";
    items.push({ credential: cookie, key: Buffer.from(secret, "utf8").toString("hex") });
  }
  return items;
}

/**
 * Magic links of returning users: per address one link spent through `auth.api` (the user is created, verified),
 * then a second link, whose token (captured in `sendMagicLink`) the measured request spends:
 * `GET /magic-link/verify?token=...` (no callbackURL: it answers the session as JSON rather than a redirect).
 */
async function seedMagicLinks(count: number): Promise<PoolItem[]> {
  const items: PoolItem[] = [];
  const headers = new Headers();
  for (let i = 0; i < count; i += 1) {
    const email = `ml-${process.pid}-${(pooled += 1)}@bench.test`;
    await auth.api.signInMagicLink({ body: { email }, headers });
    await auth.api.magicLinkVerify({ query: { token: links.get(email) ?? "" }, headers });
    await auth.api.signInMagicLink({ body: { email }, headers });
    const token = links.get(email);
    if (!token) throw new Error(`no magic link captured for ${email}`);
    links.delete(email);
    items.push({ credential: token });
  }
  return items;
}

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
    ...(secondFactor
      ? {
          seedPool: (kind: PoolKind, count: number) =>
            kind === "two-factor" ? seedTwoFactor(count) : seedMagicLinks(count),
        }
      : {}),
  },
);
