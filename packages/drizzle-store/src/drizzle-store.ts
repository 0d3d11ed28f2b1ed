import type { Store } from "@latchkey/core";
import type { Client as LibsqlClient } from "@libsql/client";
import type { Sql } from "postgres";
import { openPostgres, pgStore } from "./pg/store.ts";
import { openSqliteForStore, sqliteStore } from "./sqlite/store.ts";

/**
 * Where a Drizzle store keeps its data: a URL the store connects to, or a client the caller owns.
 * SQLite URLs are `file:` or `libsql://` (with `authToken` for Turso / sqld).
 *
 * @example
 * import type { DrizzleStoreOptions } from "@latchkey/drizzle-store";
 * const options: DrizzleStoreOptions = { dialect: "sqlite", url: "file:./auth.db" };
 */
export type DrizzleStoreOptions =
  | { dialect: "postgres"; url: string }
  | { dialect: "postgres"; client: Sql }
  | { dialect: "sqlite"; url: string; authToken?: string }
  | { dialect: "sqlite"; client: LibsqlClient };

/**
 * A relational store on PostgreSQL (postgres.js) or SQLite/libSQL (`file:` or `libsql://`), through Drizzle ORM.
 * Run `migrateDatabase` (or `latchkey migrate`) first. With `url` the store opens the connection and `close()`
 * ends it; with `client` the connection stays yours and `close()` leaves it open.
 *
 * @example
 * import { drizzleStore, migrateDatabase } from "@latchkey/drizzle-store";
 * await migrateDatabase(process.env.DATABASE_URL!);
 * const database = drizzleStore({ dialect: "postgres", url: process.env.DATABASE_URL! });
 * const auth = createAuth({ secret, database, baseUrl: "https://example.com" });
 */
export function drizzleStore(options: DrizzleStoreOptions): Store {
  if (options.dialect === "postgres") {
    return "client" in options ? pgStore(options.client, false) : pgStore(openPostgres(options.url), true);
  }
  return "client" in options ? sqliteStore(options.client, false) : sqliteStore(openSqliteForStore(options.url, options.authToken), true, options.url);
}

/** The dialect a database URL speaks, or null when the URL is neither PostgreSQL nor SQLite/libSQL. */
export function dialectOfUrl(url: string): DrizzleStoreOptions["dialect"] | null {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgres";
  if (/^(file|libsql):/i.test(url)) return "sqlite";
  return null;
}
