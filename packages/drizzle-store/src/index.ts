/**
 * @latchkey/drizzle-store: Latchkey's relational store on PostgreSQL or SQLite/libSQL, through Drizzle ORM.
 *
 * @example
 * import { drizzleStore, migrateDatabase } from "@latchkey/drizzle-store";
 */
export { drizzleStore } from "./drizzle-store.ts";
export type { DrizzleStoreOptions } from "./drizzle-store.ts";
export { migrateDatabase, MIGRATIONS_FOLDERS } from "./migrate.ts";
export type { MigrateOptions } from "./migrate.ts";
