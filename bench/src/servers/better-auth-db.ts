import { apiKey } from "@better-auth/api-key";
import { memoryAdapter } from "@better-auth/memory-adapter";
import type { BetterAuthOptions } from "better-auth";
import { getSchema } from "better-auth/db";
import { getMigrations } from "better-auth/db/migration";
import { emailOTP, genericOAuth, jwt, magicLink, twoFactor } from "better-auth/plugins";
import { SqliteDialect, type SqliteDatabase } from "kysely";
import Database from "libsql";
import pg from "pg";
import { betterAuthSqliteSchema, type BetterAuthSchema } from "./better-auth-sqlite.ts";
import { BENCH_CLIENT_ID, BENCH_CLIENT_SECRET, BENCH_PROVIDER_ID } from "./social-client.ts";

/** Better Auth's plugins as the bench runs them: the same features as the Latchkey server, throttling off. */
export function betterAuthPlugins(
  jwtHeader: boolean,
  onOtp: (email: string, otp: string) => void,
  secondFactor: { onMagicLink: (email: string, token: string) => void } | null = null,
  social: { issuer: string } | null = null,
) {
  // The second-factor configuration (`BENCH_SECOND_FACTOR=1`, its own pair of servers): twoFactor() and magicLink()
  // with their defaults (TOTP 6 digits, 30 s, window 1; links stored in plain, 5 minutes).
  const extra = secondFactor
    ? [
        twoFactor(),
        magicLink({
          async sendMagicLink({ email, token }) {
            secondFactor.onMagicLink(email, token);
          },
        }),
      ]
    : [];
  // The social sign-in configuration (`BENCH_OIDC_ISSUER`, the bench's provider): `genericOAuth()` with one provider by
  // discovery (which also gives it the issuer's JWKS, so it verifies the ID token and its nonce), PKCE (its default),
  // the client secret in the token request's body as on Latchkey's side. Its providers take the core social routes:
  // `POST /sign-in/social` and `GET /callback/:id`.
  const oauth = social
    ? [
        genericOAuth({
          config: [
            {
              providerId: BENCH_PROVIDER_ID,
              discoveryUrl: `${social.issuer}/.well-known/openid-configuration`,
              clientId: BENCH_CLIENT_ID,
              clientSecret: BENCH_CLIENT_SECRET,
              scopes: ["openid", "email", "profile"],
              authentication: "post" as const,
            },
          ],
        }),
      ]
    : [];
  return [
    ...extra,
    ...oauth,
    emailOTP({
      // Captured in-process for the harness; no email leaves the machine (the same on the Latchkey side).
      async sendVerificationOTP({ email, otp }) {
        onOtp(email, otp);
      },
    }),
    // Per-key rate limiting is on by default (10 requests a day); off here as on the Latchkey side.
    apiKey({ rateLimit: { enabled: false } }),
    jwt({ disableSettingJwtHeader: !jwtHeader }),
  ];
}

/**
 * Better Auth's tables as drizzle tables (the scale seed's column list and encoding): the columns of its own
 * `getSchema`, encoded as its Kysely adapter writes them on SQLite (ISO dates, 0/1 booleans).
 */
export function betterAuthTables(options: BetterAuthOptions) {
  return betterAuthSqliteSchema(getSchema(options) as BetterAuthSchema);
}

export type BetterAuthStore = { kind: "memory" } | { kind: "libsql"; file: string } | { kind: "postgres"; url: string };

/**
 * Better Auth's database for one store kind, with its tables created by its own migrations where it has them: its
 * memory adapter; on libSQL, its built-in Kysely adapter over the native `libsql` engine's better-sqlite3-style
 * `Database` (the fastest SQLite driver its adapters take on Node 20: measured against its drizzle adapter over
 * `@libsql/client`, which prepares every statement again and converts every row, see bench/README.md); on
 * PostgreSQL, a `pg` Pool, which Better Auth takes as its database directly (the same built-in Kysely adapter).
 */
export async function betterAuthDatabase(
  store: BetterAuthStore,
  options: BetterAuthOptions,
): Promise<{ database: BetterAuthOptions["database"]; description: string; close(): Promise<void> }> {
  if (store.kind === "memory") {
    return {
      database: memoryAdapter({
        user: [],
        session: [],
        account: [],
        verification: [],
        apikey: [],
        jwks: [],
        twoFactor: [],
        passkey: [],
      }),
      description: "@better-auth/memory-adapter",
      close: async () => undefined,
    };
  }
  if (store.kind === "libsql") {
    const db = new Database(store.file, { timeout: 5_000 });
    // One connection for the process, so both settings hold for every statement (the same as Latchkey's store sets).
    db.exec("pragma journal_mode = wal");
    db.exec("pragma synchronous = normal");
    // What Better Auth builds itself from a better-sqlite3 `Database` (Kysely's SqliteDialect, transactions on),
    // spelled out: it takes the `libsql` Database for a `{ db, type }` config because that object has a `db` field.
    const database = {
      dialect: new SqliteDialect({ database: db as unknown as SqliteDatabase }),
      type: "sqlite" as const,
      transaction: true,
    };
    const { runMigrations } = await getMigrations({ ...options, database });
    await runMigrations();
    return {
      database,
      description:
        "built-in Kysely adapter (Kysely's SqliteDialect) over the native `libsql` 0.5 engine (better-sqlite3 API, one connection; file, WAL, synchronous=NORMAL), tables from its own migrations",
      close: async () => {
        db.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: store.url, max: 10 });
  const { runMigrations } = await getMigrations({ ...options, database: pool });
  await runMigrations();
  return {
    database: pool,
    description: "built-in Kysely adapter over a pg Pool (max 10 connections), tables from its own migrations",
    close: () => pool.end(),
  };
}
