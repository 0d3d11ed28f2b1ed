/**
 * @latchkey/drizzle-store/postgres: the PostgreSQL store alone (loads the PostgreSQL driver, never libSQL).
 *
 * @example
 * import { drizzleStore, migrateDatabase } from "@latchkey/drizzle-store/postgres";
 * await migrateDatabase(process.env.DATABASE_URL!);
 * const database = drizzleStore({ url: process.env.DATABASE_URL! });
 */
import type { Store } from "@latchkey/core";
import type { Sql } from "postgres";
import { openPostgres, pgStore } from "./pg/store.ts";

export { migratePostgresDatabase as migrateDatabase } from "./pg/migrate.ts";
export { MIGRATIONS_FOLDERS } from "./migrations.ts";
export type { MigrateOptions } from "./migrations.ts";
export * as schema from "./pg/schema.ts";

/**
 * Where the PostgreSQL store keeps its data: a URL the store connects to, or a postgres.js client you own.
 *
 * @example
 * import type { PostgresStoreOptions } from "@latchkey/drizzle-store/postgres";
 * const options: PostgresStoreOptions = { url: "postgres://app:pw@db:5432/app" };
 */
export type PostgresStoreOptions = { dialect?: "postgres"; url: string } | { dialect?: "postgres"; client: Sql };

/**
 * The PostgreSQL store. Run `migrateDatabase` (or `latchkey migrate`) first. With `url` the store opens the
 * connection and `close()` ends it; with `client` the connection stays yours and `close()` leaves it open.
 *
 * @example
 * import { drizzleStore } from "@latchkey/drizzle-store/postgres";
 * const database = drizzleStore({ url: process.env.DATABASE_URL! });
 */
export function drizzleStore(options: PostgresStoreOptions): Store {
  return "client" in options ? pgStore(options.client, false) : pgStore(openPostgres(options.url), true);
}
