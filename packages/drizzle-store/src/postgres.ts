/**
 * @latchkey/drizzle-store/postgres: the PostgreSQL store on node-postgres (`pg`), alone (never loads libSQL or
 * postgres.js).
 *
 * @example
 * import { drizzleStore, migrateDatabase } from "@latchkey/drizzle-store/postgres";
 * await migrateDatabase(process.env.DATABASE_URL!);
 * const database = drizzleStore({ url: process.env.DATABASE_URL! });
 */
import type { FullStore } from "@latchkey/core";
import type pg from "pg";
import { openPgPool, type PgPoolOptions } from "./pg/connection.ts";
import { pgStore } from "./pg/store.ts";

export { migratePostgresDatabase as migrateDatabase } from "./pg/migrate.ts";
export { isPgUnavailable } from "./pg/errors.ts";
export { MIGRATIONS_FOLDERS } from "./migrations.ts";
export type { MigrateOptions } from "./migrations.ts";
export type { PgPoolOptions } from "./pg/connection.ts";
export * as schema from "./pg/schema.ts";

/**
 * Where the PostgreSQL store keeps its data: a URL (the store opens a node-postgres pool with bounded connect and
 * query times), or a `pg.Pool` you own.
 *
 * @example
 * import type { PostgresStoreOptions } from "@latchkey/drizzle-store/postgres";
 * const options: PostgresStoreOptions = { url: "postgres://app:pw@db:5432/app", queryTimeout: "3s" };
 */
export type PostgresStoreOptions =
  | ({ dialect?: "postgres"; url: string } & PgPoolOptions)
  | { dialect?: "postgres"; client: pg.Pool };

/**
 * The PostgreSQL store. Run `migrateDatabase` (or `latchkey migrate`) first. With `url` the store opens a
 * node-postgres pool (`connectTimeout` and `queryTimeout` 5 s each, `maxConnections` 10, by default) and `close()`
 * ends it; with `client` the pool stays yours and `close()` leaves it open. A database that cannot be reached
 * makes requests answer 503 DATABASE_UNAVAILABLE within those bounds. For a postgres.js client, use
 * `@latchkey/drizzle-store/postgres-js`.
 *
 * @example
 * import { drizzleStore } from "@latchkey/drizzle-store/postgres";
 * const database = drizzleStore({ url: process.env.DATABASE_URL! });
 */
export function drizzleStore(options: PostgresStoreOptions): FullStore {
  return "client" in options ? pgStore(options.client, false) : pgStore(openPgPool(options.url, options), true);
}
