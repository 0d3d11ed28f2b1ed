import type { D1DatabaseBinding } from "./binding.ts";

/**
 * One SQL migration file: `name` is the file name (`0000_initial.sql`), `sql` its text (statements separated by
 * drizzle-kit's `--> statement-breakpoint` lines).
 *
 * @example
 * import type { SqlMigration } from "@latchkey/drizzle-store/d1";
 * const first: SqlMigration = { name: "0000_initial.sql", sql: "CREATE TABLE ..." };
 */
export interface SqlMigration {
  name: string;
  sql: string;
}

/** Options of `migrateD1Database`. */
export interface D1MigrateOptions {
  /** The table recording applied migrations; wrangler's default `d1_migrations` unless your config sets `migrations_table`. */
  table?: string;
  /** Told each applied migration, or that there was nothing to apply. */
  log?: (line: string) => void;
}

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The statements of one migration file: drizzle-kit separates them with `--> statement-breakpoint`. */
export function migrationStatements(text: string): string[] {
  return text
    .split(/-->\s*statement-breakpoint/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * Applies the SQL migrations a D1 database has not seen, in file-name order, each as one D1 batch together with
 * its row in the migrations table (so a failed migration leaves nothing behind). The table is the one
 * `wrangler d1 migrations apply` keeps (same name, same columns, one row per file name): either tool sees what the
 * other applied. Resolves to the names of the migrations it applied (`[]` when the schema is up to date).
 *
 * @example
 * import { migrateD1Database } from "@latchkey/drizzle-store/d1";
 * await migrateD1Database(env.DB, [{ name: "0000_initial.sql", sql: initialSql }]);
 */
export async function migrateD1Database(
  binding: D1DatabaseBinding,
  migrations: SqlMigration[],
  options: D1MigrateOptions = {},
): Promise<string[]> {
  const table = quoteIdentifier(options.table ?? "d1_migrations");
  const log = options.log ?? (() => undefined);
  await binding
    .prepare(`CREATE TABLE IF NOT EXISTS ${table}(
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT UNIQUE,
    applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
  )`)
    .run();
  const { results = [] } = await binding.prepare(`SELECT name FROM ${table}`).all();
  const done = new Set(results.map((row) => (row as { name: string }).name));
  const pending = [...migrations].sort((a, b) => a.name.localeCompare(b.name)).filter((m) => !done.has(m.name));
  for (const migration of pending) {
    const statements = migrationStatements(migration.sql).map((text) => binding.prepare(text));
    await binding.batch([
      ...statements,
      binding.prepare(`INSERT INTO ${table} (name) VALUES (?)`).bind(migration.name),
    ]);
    log(`applied ${migration.name.replace(/\.sql$/, "")}`);
  }
  if (pending.length === 0) log("nothing to apply: the schema is up to date");
  return pending.map((m) => m.name.replace(/\.sql$/, ""));
}
