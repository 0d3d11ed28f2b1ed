import { MIGRATIONS_FOLDERS, readSqlMigrations } from "@latchkey/drizzle-store";
import { migrateD1Database, type D1DatabaseBinding } from "@latchkey/drizzle-store/d1";
import { Miniflare } from "miniflare";

/**
 * A real D1 binding from Node: Miniflare (workerd) with one migrated D1 database named `name`. `dispose` stops
 * workerd. If workerd cannot start, the promise rejects and the suite fails (no skip).
 *
 * @example
 * const d1 = await migratedD1("compensation-scope");
 * const store = drizzleStore({ binding: d1.binding });
 */
export async function migratedD1(name: string): Promise<{ binding: D1DatabaseBinding; dispose(): Promise<void> }> {
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 404 }); } }",
    compatibilityDate: "2026-04-01",
    d1Databases: { DB: name },
  });
  const binding = (await mf.getD1Database("DB")) as unknown as D1DatabaseBinding;
  await migrateD1Database(binding, readSqlMigrations(MIGRATIONS_FOLDERS.sqlite));
  return { binding, dispose: () => mf.dispose() };
}
