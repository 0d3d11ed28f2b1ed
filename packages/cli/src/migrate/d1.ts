import { join, resolve } from "node:path";

/**
 * Options of `migrateLocalD1`.
 *
 * @example
 * import type { LocalD1Options } from "@latchkey/cli";
 * const options: LocalD1Options = { persistTo: ".wrangler/state", log: console.log };
 */
export interface LocalD1Options {
  /** wrangler's state folder (its `--persist-to`); defaults to `.wrangler/state` in the current directory. */
  persistTo?: string;
  /** The migrations table, when wrangler.toml sets `migrations_table`; wrangler's default `d1_migrations` otherwise. */
  table?: string;
  /** Told each applied migration, or that there was nothing to apply. */
  log?: (line: string) => void;
}

/** Loads Miniflare on demand, with an error that says what to install when it is absent. */
export async function importMiniflare(load: () => Promise<unknown> = () => import("miniflare")): Promise<typeof import("miniflare")> {
  try {
    return (await load()) as typeof import("miniflare");
  } catch (error) {
    const missing = error instanceof Error && /cannot find (package|module)|failed to (load|resolve)/i.test(error.message) && error.message.includes("miniflare");
    if (!missing) throw error;
    throw new Error("local D1 databases are reached through Miniflare, which is not installed: npm install -D miniflare (wrangler's own copy may not be resolvable from @latchkey/cli)", { cause: error });
  }
}

/**
 * Applies Latchkey's SQLite migrations to a local D1 database: the one `wrangler dev` and `wrangler d1 ... --local`
 * use, in `<persistTo>/v3/d1`, opened through Miniflare. `id` is the id wrangler gives it locally: the binding's
 * `preview_database_id`, else its `database_id`, else the binding name. What was applied is recorded in wrangler's
 * migrations table, so `wrangler d1 migrations apply --local` and this see the same history. Remote D1 is not
 * reachable from here: use `wrangler d1 migrations apply <name> --remote`.
 *
 * @example
 * import { migrateLocalD1 } from "@latchkey/cli";
 * await migrateLocalD1("DB", { log: console.log }); // ["0000_initial"], then []
 */
export async function migrateLocalD1(id: string, options: LocalD1Options = {}): Promise<string[]> {
  const { Miniflare } = await importMiniflare();
  const { MIGRATIONS_FOLDERS, readSqlMigrations } = await import("@latchkey/drizzle-store");
  const { migrateD1Database } = await import("@latchkey/drizzle-store/d1");
  const d1Persist = join(resolve(options.persistTo ?? ".wrangler/state"), "v3", "d1");
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 404 }); } }",
    d1Databases: { DB: id },
    d1Persist,
  });
  try {
    const binding = await mf.getD1Database("DB");
    return await migrateD1Database(binding, readSqlMigrations(MIGRATIONS_FOLDERS.sqlite), {
      ...(options.table === undefined ? {} : { table: options.table }),
      ...(options.log === undefined ? {} : { log: options.log }),
    });
  } finally {
    await mf.dispose();
  }
}
