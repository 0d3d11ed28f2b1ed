import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import type pg from "pg";
import { MIGRATIONS_FOLDERS, reportApplied, type MigrateOptions } from "../migrations.ts";
import { openPgPool } from "./connection.ts";

// Any constant will do; it only has to be the same in every process that migrates this database.
export const PG_MIGRATION_LOCK = 7_203_551_094;

/** The newest applied migration's timestamp, or null on a database that has none. */
export async function newestPgMigration(
  query: (sql: string) => Promise<Array<Record<string, unknown>>>,
): Promise<number | null> {
  const [table] = await query("select to_regclass('drizzle.__drizzle_migrations') is not null as exists");
  if (!table?.exists) return null;
  const [newest] = await query("select max(created_at)::text as last from drizzle.__drizzle_migrations");
  const last = newest?.last;
  return last === null || last === undefined ? null : Number(last);
}

async function migrateNodePostgres(pool: pg.Pool, folder: string, log: (line: string) => void): Promise<string[]> {
  // A session advisory lock, held on a connection of its own, makes concurrent migrators run one after the other
  // while drizzle's migrator uses another connection of the pool.
  const lock = await pool.connect();
  try {
    await lock.query("select pg_advisory_lock($1)", [PG_MIGRATION_LOCK]);
    try {
      const newest = await newestPgMigration(
        async (sql) => (await pool.query(sql)).rows as Array<Record<string, unknown>>,
      );
      await migrateNodePg(drizzleNodePg({ client: pool }), { migrationsFolder: folder });
      return reportApplied(folder, newest, log);
    } finally {
      await lock.query("select pg_advisory_unlock($1)", [PG_MIGRATION_LOCK]);
    }
  } finally {
    lock.release();
  }
}

/**
 * Applies the PostgreSQL schema migrations; idempotent (a second run applies nothing). Takes a `postgres://` URL or
 * a `pg.Pool` of yours, and resolves to the tags of the migrations it applied.
 *
 * @example
 * import { migrateDatabase } from "@latchkey/drizzle-store/postgres";
 * await migrateDatabase(process.env.DATABASE_URL!, { log: console.log });
 */
export async function migratePostgresDatabase(
  target: string | pg.Pool,
  options: MigrateOptions = {},
): Promise<string[]> {
  const log = options.log ?? (() => undefined);
  const folder = options.migrationsFolder ?? MIGRATIONS_FOLDERS.postgres;
  if (typeof target !== "string") return migrateNodePostgres(target, folder, log);
  const pool = openPgPool(target, { maxConnections: 2, queryTimeout: "60s" });
  try {
    return await migrateNodePostgres(pool, folder, log);
  } finally {
    await pool.end();
  }
}
