import { apiKey } from "@better-auth/api-key";
import { memoryAdapter } from "@better-auth/memory-adapter";
import { createClient } from "@libsql/client";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { getSchema } from "better-auth/db";
import { emailOTP, jwt } from "better-auth/plugins";
import { drizzle } from "drizzle-orm/libsql";
import { betterAuthSqliteSchema, type BetterAuthSchema } from "./better-auth-sqlite.ts";
import { useWal } from "./sqlite.ts";
import { readServerEnv, runServer } from "./shell.ts";

// Better Auth 1.7.5 with the same features as the Latchkey server: email/password, email OTP, API keys, JWT.
// Everything else is its default (scrypt N=16384 r=16 p=1 via node:crypto, EdDSA/Ed25519 JWTs with an
// encrypted private key, database-backed sessions without cookie cache), throttling off.
const env = readServerEnv();
const codes = new Map<string, string>();

const plugins = [
  emailOTP({
    // Captured in-process for the harness; no email leaves the machine (the same on the Latchkey side).
    async sendVerificationOTP({ email, otp }) {
      codes.set(email, otp);
    },
  }),
  // Per-key rate limiting is on by default (10 requests a day); off here as on the Latchkey side.
  apiKey({ rateLimit: { enabled: false } }),
  jwt({ disableSettingJwtHeader: !env.jwtHeader }),
];

const baseOptions = {
  secret: env.secret,
  baseURL: env.baseUrl,
  basePath: "/auth",
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  logger: { level: "error" as const },
  plugins,
} satisfies BetterAuthOptions;

async function database(): Promise<BetterAuthOptions["database"]> {
  if (env.store === "memory") {
    return memoryAdapter({ user: [], session: [], account: [], verification: [], apikey: [], jwks: [] });
  }
  // libSQL file through Better Auth's drizzle adapter: the same ORM (drizzle-orm) and driver (@libsql/client)
  // as Latchkey's drizzle-store, with the tables and indexes Better Auth's schema asks for.
  const client = createClient({ url: `file:${env.dbFile}` });
  await useWal(client);
  const { tables, ddl } = betterAuthSqliteSchema(getSchema(baseOptions as BetterAuthOptions) as BetterAuthSchema);
  for (const statement of ddl) await client.execute(statement);
  return drizzleAdapter(drizzle({ client }), { provider: "sqlite", schema: tables });
}

const auth = betterAuth({ ...baseOptions, database: await database() });

const features = {
  name: "better-auth",
  version: "1.7.5",
  jwt: true,
  apiKeys: true,
  emailOtp: true,
  store: env.store === "memory" ? "@better-auth/memory-adapter" : "drizzle adapter + @libsql/client (file, WAL, synchronous=NORMAL on its first connection)",
  passwordHash: "scrypt N=16384 r=16 p=1 (node:crypto, default)",
};

runServer(
  env,
  (app) => {
    // API-key verification is server-only in Better Auth: one route exposes `auth.api.verifyApiKey`.
    app.post("/bench/api-key/verify", async (c) => {
      const { key } = await c.req.json<{ key: string }>();
      const result = await auth.api.verifyApiKey({ body: { key } });
      return c.json(result, result.valid ? 200 : 401);
    });
    app.on(["GET", "POST"], "/auth/*", (c) => auth.handler(c.req.raw));
  },
  {
    features,
    async createApiKeys(userId) {
      const unlimited = await auth.api.createApiKey({ body: { userId, name: "unlimited" } });
      const quota = await auth.api.createApiKey({ body: { userId, name: "quota", remaining: 1_000_000_000 } });
      return { unlimited: unlimited.key, quota: quota.key };
    },
    otpFor: (email) => codes.get(email),
  },
);
