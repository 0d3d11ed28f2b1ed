/**
 * @latchkey/drizzle-store/postgres-js: the PostgreSQL store over a postgres.js client you own. The default driver is
 * node-postgres (`@latchkey/drizzle-store/postgres`): postgres.js 3.4.9 can throw an uncatchable error when a
 * connection closes under load (a database restart), which ends the process; see docs/stores.md.
 *
 * @example
 * import postgres from "postgres";
 * import { drizzleStore } from "@latchkey/drizzle-store/postgres-js";
 * const database = drizzleStore({ client: postgres(process.env.DATABASE_URL!) });
 */
import type { FullStore } from "@latchkey/core";
import type { Sql } from "postgres";
import { postgresJsStore } from "./pg/postgres-js.ts";

export { migratePostgresJsDatabase as migrateDatabase } from "./pg/postgres-js-migrate.ts";
export { isPgUnavailable } from "./pg/errors.ts";
export { MIGRATIONS_FOLDERS } from "./migrations.ts";
export type { MigrateOptions } from "./migrations.ts";

/**
 * The PostgreSQL store over your postgres.js client; `close()` leaves the client open (it is yours).
 *
 * @example
 * const database = drizzleStore({ client: sql });
 */
export function drizzleStore(options: { dialect?: "postgres"; client: Sql }): FullStore {
  return postgresJsStore(options.client, false);
}
