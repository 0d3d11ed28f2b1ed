/**
 * @latchkey/drizzle-store: Latchkey's relational store on PostgreSQL or SQLite/libSQL, through Drizzle ORM.
 * Import a dialect's entry to load only its driver: `@latchkey/drizzle-store/postgres` or
 * `@latchkey/drizzle-store/sqlite`. This root entry picks the dialect from a URL at run time.
 *
 * @example
 * import { openDrizzleStore, migrateDatabase } from "@latchkey/drizzle-store";
 */
export { openDrizzleStore, migrateDatabase, dialectOfUrl } from "./drizzle-store.ts";
export type { DatabaseUrl } from "./drizzle-store.ts";
export { MIGRATIONS_FOLDERS, readSqlMigrations } from "./migrations.ts";
export type { MigrateOptions } from "./migrations.ts";
