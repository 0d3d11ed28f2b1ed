// The D1 store in workerd: the shared store-conformance suite (race cases included) and the D1-specific cases of
// test/d1-workerd/conformance-worker.ts run inside a worker over a real D1 binding (Miniflare), one Vitest case per
// suite case. The worker and workerd start at collection: if workerd cannot start, this file fails (no skip).
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, describe, expect, it } from "vitest";
import { drizzleStore, migrateD1Database, type D1DatabaseBinding } from "./d1.ts";
import { MIGRATIONS_FOLDERS, readSqlMigrations } from "./migrations.ts";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
// Bundled as wrangler would (ESM, workerd conditions, node: left external so a leftover shows), run without nodejs_compat.
const bundle = await build({
  entryPoints: [here("../test/d1-workerd/conformance-worker.ts")],
  bundle: true,
  write: false,
  metafile: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["browser", "module", "main"],
  conditions: ["workerd", "worker", "browser"],
  target: "es2022",
  external: ["node:*"],
  alias: { vitest: here("../test/d1-workerd/vitest-in-worker.ts") },
  logLevel: "silent",
});
const nodeImports = Object.values(bundle.metafile.outputs)
  .flatMap((o) => o.imports.map((i) => i.path))
  .filter((p) => p.startsWith("node:"));
const mf = new Miniflare({
  modules: [{ type: "ESModule", path: "worker.js", contents: bundle.outputFiles[0]!.text }],
  compatibilityDate: "2026-04-01",
  d1Databases: { DB: "conformance" },
});
await mf.ready;
const call = async (path: string, method = "GET") =>
  (await mf.dispatchFetch(`http://conformance${path}`, { method })).json();
const d1 = async () => (await mf.getD1Database("DB")) as unknown as D1DatabaseBinding;
const applied = await migrateD1Database(await d1(), readSqlMigrations(MIGRATIONS_FOLDERS.sqlite));
const cases = (await call("/cases")) as Array<{ id: number; name: string; skip: boolean }>;

afterAll(async () => {
  await call("/finish", "POST");
  await mf.dispose();
});

describe("D1 store inside workerd (Miniflare D1 binding)", () => {
  it("the worker bundle imports no node: module and the migrations applied", () => {
    expect(nodeImports).toEqual([]);
    expect(applied).toEqual([
      "0000_initial",
      "0001_api_key_lifecycle",
      "0002_session_remember_me",
      "0003_app_metadata",
      "0004_counters_reset_at_index",
      "0005_partial_nullable_indexes",
      "0006_two_factor",
      "0007_social_accounts",
      "0008_passkeys",
      "0009_admin",
      "0010_organizations",
      "0011_impersonation_index",
      "0012_organization_api_keys",
    ]);
    // The whole shared suite registered inside the worker (40-odd cases today), plus the D1 cases.
    expect(cases.filter((c) => c.name.startsWith("store conformance: d1 (workerd) >")).length).toBeGreaterThanOrEqual(
      40,
    );
    expect(cases.filter((c) => c.name.startsWith("d1 store mapping >")).length).toBe(4);
  });

  it("refuses a missing binding at once, naming what to configure", () => {
    expect(() => drizzleStore({ binding: undefined as unknown as D1DatabaseBinding })).toThrow(
      /needs a D1 binding: env\.DB from \[\[d1_databases\]\]/,
    );
    expect(() => drizzleStore({ binding: {} as D1DatabaseBinding })).toThrow(TypeError);
  });

  it("migrateD1Database: a second run applies nothing; a failing migration leaves neither its tables nor its history row", async () => {
    const db = await d1();
    const lines: string[] = [];
    expect(
      await migrateD1Database(db, readSqlMigrations(MIGRATIONS_FOLDERS.sqlite), { log: (line) => lines.push(line) }),
    ).toEqual([]);
    expect(lines).toEqual(["nothing to apply: the schema is up to date"]);
    // The second statement collides with an existing table: the batch rolls back the first one too.
    const broken = {
      name: "9999_broken.sql",
      sql: "CREATE TABLE `half_done` (`a` integer);\n--> statement-breakpoint\nCREATE TABLE `users` (`a` integer);",
    };
    await expect(migrateD1Database(db, [broken])).rejects.toThrow(/already exists/);
    expect((await db.prepare("select name from sqlite_master where name = 'half_done'").all()).results).toEqual([]);
    expect((await db.prepare("select name from d1_migrations order by id").all()).results).toEqual([
      { name: "0000_initial.sql" },
      { name: "0001_api_key_lifecycle.sql" },
      { name: "0002_session_remember_me.sql" },
      { name: "0003_app_metadata.sql" },
      { name: "0004_counters_reset_at_index.sql" },
      { name: "0005_partial_nullable_indexes.sql" },
      { name: "0006_two_factor.sql" },
      { name: "0007_social_accounts.sql" },
      { name: "0008_passkeys.sql" },
      { name: "0009_admin.sql" },
      { name: "0010_organizations.sql" },
      { name: "0011_impersonation_index.sql" },
      { name: "0012_organization_api_keys.sql" },
    ]);
  });

  for (const c of cases) {
    (c.skip ? it.skip : it)(c.name, async (context) => {
      const result = (await call(`/cases/${c.id}`, "POST")) as { ok: boolean; error?: string; skipped?: string };
      expect(result.error ?? null).toBeNull();
      expect(result.ok).toBe(true);
      // A case the worker skipped (e.g. "store has no apiKeys port") is reported skipped here too, with its note.
      if (result.skipped !== undefined) context.skip(result.skipped);
    });
  }
});
