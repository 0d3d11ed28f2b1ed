/**
 * @latchkey/drizzle-store/sqlite: the SQLite/libSQL store alone (loads libSQL, never the PostgreSQL driver).
 *
 * @example
 * import { drizzleStore, migrateDatabase } from "@latchkey/drizzle-store/sqlite";
 * await migrateDatabase("file:./auth.db");
 * const database = drizzleStore({ url: "file:./auth.db" });
 */
import type { FullStore } from "@latchkey/core";
import type { Client as LibsqlClient } from "@libsql/client";
import { openSqliteForStore } from "./sqlite/connection.ts";
import { sqliteStore } from "./sqlite/store.ts";

export { migrateSqliteDatabase as migrateDatabase } from "./sqlite/migrate.ts";
export { MIGRATIONS_FOLDERS, readSqlMigrations } from "./migrations.ts";
export type { MigrateOptions } from "./migrations.ts";
export * as schema from "./sqlite/schema.ts";

/**
 * Where the SQLite store keeps its data: a `file:` or `libsql://` URL (with `authToken` for Turso / sqld), or a
 * libSQL client you own.
 *
 * @example
 * import type { SqliteStoreOptions } from "@latchkey/drizzle-store/sqlite";
 * const options: SqliteStoreOptions = { url: "file:./auth.db" };
 */
export type SqliteStoreOptions =
  | { dialect?: "sqlite"; url: string; authToken?: string }
  | { dialect?: "sqlite"; client: LibsqlClient };

/**
 * The SQLite/libSQL store. Run `migrateDatabase` (or `latchkey migrate`) first. With `url` the store opens the
 * database and `close()` closes it; with `client` the client stays yours.
 *
 * @example
 * import { drizzleStore } from "@latchkey/drizzle-store/sqlite";
 * const database = drizzleStore({ url: "file:./auth.db" });
 */
export function drizzleStore(options: SqliteStoreOptions): FullStore {
  return "client" in options
    ? sqliteStore(options.client, false)
    : sqliteStore(openSqliteForStore(options.url, options.authToken), true, options.url);
}
