import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgresJs } from "drizzle-orm/postgres-js/migrator";
import type { Sql } from "postgres";
import { MIGRATIONS_FOLDERS, reportApplied, type MigrateOptions } from "../migrations.ts";
import { openPostgres } from "./store.ts";

// Any constant will do; it only has to be the same in every process that migrates this database.
const PG_MIGRATION_LOCK = 7_203_551_094;

async function migratePostgres(client: Sql, folder: string, log: (line: string) => void): Promise<string[]> {
  // A session advisory lock, held on a connection of its own, makes concurrent migrators run one after the other
  // while drizzle's migrator uses another connection of the pool.
  if (client.options.max < 2) throw new TypeError("migrating PostgreSQL needs a postgres.js client with max >= 2 connections");
  const lock = await client.reserve();
  try {
    await lock`select pg_advisory_lock(${PG_MIGRATION_LOCK})`;
    try {
      const [table] = await client<{ exists: boolean }[]>`select to_regclass('drizzle.__drizzle_migrations') is not null as exists`;
      const [newest] = table?.exists
        ? await client<{ last: string | null }[]>`select max(created_at)::text as last from drizzle.__drizzle_migrations`
        : [];
      await migratePostgresJs(drizzlePostgres({ client }), { migrationsFolder: folder });
      return reportApplied(folder, newest?.last == null ? null : Number(newest.last), log);
    } finally {
      await lock`select pg_advisory_unlock(${PG_MIGRATION_LOCK})`;
    }
  } finally {
    lock.release();
  }
}

/**
 * Applies the PostgreSQL schema migrations; idempotent (a second run applies nothing). Takes a `postgres://` URL or
 * a client of yours, and resolves to the tags of the migrations it applied.
 *
 * @example
 * import { migrateDatabase } from "@latchkey/drizzle-store/postgres";
 * await migrateDatabase(process.env.DATABASE_URL!, { log: console.log });
 */
export async function migratePostgresDatabase(target: string | Sql, options: MigrateOptions = {}): Promise<string[]> {
  const log = options.log ?? (() => undefined);
  const folder = options.migrationsFolder ?? MIGRATIONS_FOLDERS.postgres;
  if (typeof target !== "string") return migratePostgres(target, folder, log);
  const client = openPostgres(target, 2);
  try {
    return await migratePostgres(client, folder, log);
  } finally {
    await client.end({ timeout: 5 });
  }
}
