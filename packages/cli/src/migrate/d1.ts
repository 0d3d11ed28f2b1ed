import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

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

/**
 * The Miniflare that the project's wrangler uses, as a file path, or null without wrangler. Local D1 files carry
 * workerd's own bookkeeping tables, whose layout changes between workerd versions: opening wrangler's state with
 * another Miniflare can fail, so wrangler's own copy goes first.
 */
export function wranglerMiniflare(projectDir: string): string | null {
  try {
    const wrangler = createRequire(join(resolve(projectDir), "package.json")).resolve("wrangler/package.json");
    return createRequire(wrangler).resolve("miniflare");
  } catch {
    return null;
  }
}

const defaultLoad = (projectDir: string) => () => {
  const path = wranglerMiniflare(projectDir);
  return path === null ? import("miniflare") : import(pathToFileURL(path).href);
};

/**
 * Loads Miniflare on demand (wrangler's copy when the project has wrangler, else the `miniflare` package), with an
 * error that says what to install when neither is there.
 */
export async function importMiniflare(
  load: () => Promise<unknown> = defaultLoad(process.cwd()),
): Promise<typeof import("miniflare")> {
  try {
    return (await load()) as typeof import("miniflare");
  } catch (error) {
    const missing =
      error instanceof Error &&
      /cannot find (package|module)|failed to (load|resolve)/i.test(error.message) &&
      error.message.includes("miniflare");
    if (!missing) throw error;
    throw new Error(
      "local D1 databases are reached through Miniflare, which is not installed: npm install -D wrangler (or miniflare)",
      { cause: error },
    );
  }
}

/**
 * Applies Latchkey's SQLite migrations to a local D1 database: the one `wrangler dev` and `wrangler d1 ... --local`
 * use, in `<persistTo>/v3/d1`, opened through Miniflare. `id` is the id wrangler gives it locally: the binding's
 * `preview_database_id`, else its `database_id`, else the binding name. What was applied is recorded in wrangler's
 * migrations table, so `wrangler d1 migrations apply --local` and this see the same history. The Miniflare is the
 * project's wrangler's (found from the current directory) when there is one. Remote D1 is not reachable from
 * here: use `wrangler d1 migrations apply <name> --remote`.
 *
 * @example
 * import { migrateLocalD1 } from "@latchkey/cli";
 * await migrateLocalD1("DB", { log: console.log }); // ["0000_initial"], then []
 */
export async function migrateLocalD1(id: string, options: LocalD1Options = {}): Promise<string[]> {
  const { Miniflare, ...rest } = await importMiniflare();
  const { MIGRATIONS_FOLDERS, readSqlMigrations } = await import("@latchkey/drizzle-store");
  const { migrateD1Database } = await import("@latchkey/drizzle-store/d1");
  const state = join(resolve(options.persistTo ?? ".wrangler/state"), "v3");
  const worker = {
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 404 }); } }",
    d1Databases: { DB: id },
  };
  // Miniflare 4 takes these options as they are, D1 files under `d1Persist`; Miniflare 5 (wrangler's current one)
  // takes them through its converter, with the whole state folder as `resourcePersistencePath`.
  const convert = (rest as { convertV4MiniflareOptions?: (options: object) => object }).convertV4MiniflareOptions;
  const mf = new Miniflare(
    (convert
      ? convert({ ...worker, resourcePersistencePath: state })
      : { ...worker, d1Persist: join(state, "d1") }) as ConstructorParameters<typeof Miniflare>[0],
  );
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
