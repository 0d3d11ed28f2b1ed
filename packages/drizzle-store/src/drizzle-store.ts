import type { FullStore } from "@latchkey/core";
import type { MigrateOptions } from "./migrations.ts";
import type { PgPoolOptions } from "./pg/connection.ts";

/**
 * A database URL and, for `libsql://`, its token: what the URL-driven helpers of the root entry take.
 *
 * @example
 * import type { DatabaseUrl } from "@latchkey/drizzle-store";
 * const target: DatabaseUrl = { url: "libsql://auth.example.turso.io", authToken: process.env.TURSO_TOKEN };
 */
export interface DatabaseUrl {
  url: string;
  authToken?: string;
}

/** The dialect a database URL speaks, or null when the URL is neither PostgreSQL nor SQLite/libSQL. */
export function dialectOfUrl(url: string): "postgres" | "sqlite" | null {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgres";
  if (/^(file|libsql):/i.test(url)) return "sqlite";
  return null;
}

function dialectOf(url: string): "postgres" | "sqlite" {
  const dialect = dialectOfUrl(url);
  if (dialect === null) throw new TypeError("expected a postgres://, postgresql://, file: or libsql:// database URL");
  return dialect;
}

/**
 * Opens the store a URL names, loading only that dialect's driver (`pg` or `@libsql/client`); PostgreSQL takes the
 * pool options of `@latchkey/drizzle-store/postgres` (`connectTimeout`, `queryTimeout`, ...). For code that
 * picks the database at run time; with a fixed dialect, `drizzleStore` from `/postgres` or `/sqlite` is synchronous.
 *
 * @example
 * import { openDrizzleStore } from "@latchkey/drizzle-store";
 * const database = await openDrizzleStore(process.env.DATABASE_URL!);
 */
export async function openDrizzleStore(target: string | (DatabaseUrl & PgPoolOptions)): Promise<FullStore> {
  const { url, authToken, ...pool } = typeof target === "string" ? { url: target, authToken: undefined } : target;
  if (dialectOf(url) === "postgres") return (await import("./postgres.ts")).drizzleStore({ url, ...pool });
  return (await import("./sqlite.ts")).drizzleStore(authToken === undefined ? { url } : { url, authToken });
}

/**
 * Applies the schema migrations for the database a URL names; idempotent (a second run applies nothing). Resolves
 * to the tags of the migrations it applied.
 *
 * @example
 * import { migrateDatabase } from "@latchkey/drizzle-store";
 * const applied = await migrateDatabase("file:./auth.db", { log: console.log }); // ["0000_initial"], then []
 */
export async function migrateDatabase(target: string | DatabaseUrl, options: MigrateOptions = {}): Promise<string[]> {
  const { url, authToken } = typeof target === "string" ? { url: target, authToken: undefined } : target;
  if (dialectOf(url) === "postgres") return (await import("./postgres.ts")).migrateDatabase(url, options);
  return (await import("./sqlite.ts")).migrateDatabase(
    url,
    authToken === undefined ? options : { ...options, authToken },
  );
}
