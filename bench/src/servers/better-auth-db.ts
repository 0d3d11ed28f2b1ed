import { apiKey } from "@better-auth/api-key";
import { memoryAdapter } from "@better-auth/memory-adapter";
import { createClient } from "@libsql/client";
import type { BetterAuthOptions } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { getSchema } from "better-auth/db";
import { getMigrations } from "better-auth/db/migration";
import { emailOTP, jwt } from "better-auth/plugins";
import { drizzle } from "drizzle-orm/libsql";
import pg from "pg";
import { betterAuthSqliteSchema, type BetterAuthSchema } from "./better-auth-sqlite.ts";
import { useWal } from "./sqlite.ts";

/** Better Auth's plugins as the bench runs them: the same features as the Latchkey server, throttling off. */
export function betterAuthPlugins(jwtHeader: boolean, onOtp: (email: string, otp: string) => void) {
  return [
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

/** Better Auth's tables as drizzle sees them (for its SQLite adapter and for the scale seed's column list). */
export function betterAuthTables(options: BetterAuthOptions) {
  return betterAuthSqliteSchema(getSchema(options) as BetterAuthSchema);
}

export type BetterAuthStore = { kind: "memory" } | { kind: "libsql"; file: string } | { kind: "postgres"; url: string };

/**
 * Better Auth's database for one store kind, with its tables created: its memory adapter; its drizzle adapter over
 * @libsql/client (tables and indexes from its own `getSchema`); or, on PostgreSQL, a `pg` Pool, which Better Auth
 * takes as its database directly (its built-in Kysely adapter) and whose tables its own migrations create.
 */
export async function betterAuthDatabase(
  store: BetterAuthStore,
  options: BetterAuthOptions,
): Promise<{ database: BetterAuthOptions["database"]; description: string; close(): Promise<void> }> {
  if (store.kind === "memory") {
    return {
      database: memoryAdapter({ user: [], session: [], account: [], verification: [], apikey: [], jwks: [] }),
      description: "@better-auth/memory-adapter",
      close: async () => undefined,
    };
  }
  if (store.kind === "libsql") {
    const client = createClient({ url: `file:${store.file}` });
    await useWal(client);
    const { tables, ddl } = betterAuthTables(options);
    const existing = await client.execute("select name from sqlite_master where type = 'table' and name = 'user'");
    if (existing.rows.length === 0) for (const statement of ddl) await client.execute(statement);
    return {
      database: drizzleAdapter(drizzle({ client }), { provider: "sqlite", schema: tables }),
      description: "drizzle adapter + @libsql/client (file, WAL, synchronous=NORMAL on its first connection)",
      close: async () => client.close(),
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
