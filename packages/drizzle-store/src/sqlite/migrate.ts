import type { Client as LibsqlClient } from "@libsql/client";
import { drizzle as drizzleLibsql } from "drizzle-orm/libsql";
import { migrate as migrateLibsql } from "drizzle-orm/libsql/migrator";
import { MIGRATIONS_FOLDERS, reportApplied, type MigrateOptions } from "../migrations.ts";
import { openSqlite } from "./connection.ts";

async function migrateSqlite(client: LibsqlClient, folder: string, log: (line: string) => void): Promise<string[]> {
  const exists = await client.execute(
    "select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'",
  );
  const last =
    exists.rows.length === 0
      ? null
      : (await client.execute("select max(created_at) as last from __drizzle_migrations")).rows[0]?.last;
  await migrateLibsql(drizzleLibsql({ client }), { migrationsFolder: folder });
  return reportApplied(folder, last === null || last === undefined ? null : Number(last), log);
}

/**
 * Applies the SQLite/libSQL schema migrations; idempotent. Takes a `file:` or `libsql://` URL (with `authToken`) or
 * a client of yours, and resolves to the tags of the migrations it applied.
 *
 * @example
 * import { migrateDatabase } from "@latchkey/drizzle-store/sqlite";
 * await migrateDatabase("file:./auth.db"); // ["0000_initial"], then []
 */
export async function migrateSqliteDatabase(
  target: string | LibsqlClient,
  options: MigrateOptions & { authToken?: string } = {},
): Promise<string[]> {
  const log = options.log ?? (() => undefined);
  const folder = options.migrationsFolder ?? MIGRATIONS_FOLDERS.sqlite;
  if (typeof target !== "string") return migrateSqlite(target, folder, log);
  const client = openSqlite(target, options.authToken);
  try {
    return await migrateSqlite(client, folder, log);
  } finally {
    client.close();
  }
}
