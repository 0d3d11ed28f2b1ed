/**
 * @latchkey/drizzle-store/d1: the SQLite store over a Cloudflare D1 binding, for Workers. Same schema and
 * migrations as `/sqlite`; loads no driver and imports no `node:` module.
 *
 * @example
 * import { drizzleStore } from "@latchkey/drizzle-store/d1";
 * const database = drizzleStore({ binding: env.DB });
 */
import type { FullStore } from "@latchkey/core";
import type { D1DatabaseBinding } from "./d1/binding.ts";
import { d1Store } from "./d1/store.ts";

export type { D1DatabaseBinding, D1StatementLike } from "./d1/binding.ts";
export { migrateD1Database, migrationStatements } from "./d1/migrate.ts";
export type { D1MigrateOptions, SqlMigration } from "./d1/migrate.ts";
export * as schema from "./sqlite/schema.ts";

/**
 * Where the D1 store keeps its data: the D1 binding from the Worker's `env` (`[[d1_databases]]` in wrangler.toml).
 *
 * @example
 * import type { D1StoreOptions } from "@latchkey/drizzle-store/d1";
 * const options: D1StoreOptions = { binding: env.DB };
 */
export interface D1StoreOptions {
  dialect?: "d1";
  binding: D1DatabaseBinding;
}

/**
 * The store on Cloudflare D1. Apply the migrations first (`wrangler d1 migrations apply`, see docs/runtimes.md).
 * Build it once per isolate, from the first request's `env`; `close()` does nothing (the binding is the runtime's).
 *
 * @example
 * import { drizzleStore } from "@latchkey/drizzle-store/d1";
 * const database = drizzleStore({ binding: env.DB });
 */
export function drizzleStore(options: D1StoreOptions): FullStore {
  // A missing binding would otherwise surface as an odd error on the first query, inside some request.
  if (typeof options?.binding?.prepare !== "function" || typeof options.binding.batch !== "function") {
    throw new TypeError("drizzleStore({ binding }) needs a D1 binding: env.DB from [[d1_databases]] in wrangler.toml");
  }
  return d1Store(options.binding);
}
