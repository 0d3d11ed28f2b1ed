import { drizzle as drizzlePostgresJs } from "drizzle-orm/postgres-js";
import { migrate as migratePostgresJs } from "drizzle-orm/postgres-js/migrator";
import type { Sql } from "postgres";
import { MIGRATIONS_FOLDERS, reportApplied, type MigrateOptions } from "../migrations.ts";
import { newestPgMigration, PG_MIGRATION_LOCK } from "./migrate.ts";

/**
 * Applies the PostgreSQL schema migrations over a postgres.js client of yours (it needs max >= 2 connections: one
 * holds the advisory lock that serialises concurrent migrators).
 *
 * @example
 * import { migrateDatabase } from "@latchkey/drizzle-store/postgres-js";
 * await migrateDatabase(sql);
 */
export async function migratePostgresJsDatabase(client: Sql, options: MigrateOptions = {}): Promise<string[]> {
  const log = options.log ?? (() => undefined);
  const folder = options.migrationsFolder ?? MIGRATIONS_FOLDERS.postgres;
  if (client.options.max < 2)
    throw new TypeError("migrating PostgreSQL needs a postgres.js client with max >= 2 connections");
  const lock = await client.reserve();
  try {
    await lock`select pg_advisory_lock(${PG_MIGRATION_LOCK})`;
    try {
      const newest = await newestPgMigration(
        (sql) => client.unsafe(sql) as unknown as Promise<Array<Record<string, unknown>>>,
      );
      await migratePostgresJs(drizzlePostgresJs({ client }), { migrationsFolder: folder });
      return reportApplied(folder, newest, log);
    } finally {
      await lock`select pg_advisory_unlock(${PG_MIGRATION_LOCK})`;
    }
  } finally {
    lock.release();
  }
}
