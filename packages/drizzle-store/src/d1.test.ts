// The D1 store in workerd: the shared store-conformance suite (race cases included) and the D1-specific cases of
// d1/workerd/conformance-worker.ts run inside a worker over a real D1 binding (Miniflare), one Vitest case per
// suite case. The worker and workerd start at collection: if workerd cannot start, this file fails (no skip).
import { fileURLToPath } from "node:url";
import { bundleWorker, startWorker } from "@latchkey/e2e/workerd";
import { afterAll, describe, expect, it } from "vitest";
import { migrateD1Database } from "./d1.ts";
import { MIGRATIONS_FOLDERS, readSqlMigrations } from "./migrations.ts";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const bundle = await bundleWorker(here("./d1/workerd/conformance-worker.ts"), { alias: { vitest: here("./d1/workerd/vitest-in-worker.ts") } });
const worker = await startWorker(bundle.code, {}, { d1: { databases: { DB: "conformance" } } });
const applied = await migrateD1Database(await worker.d1("DB"), readSqlMigrations(MIGRATIONS_FOLDERS.sqlite));
const cases = (await (await worker.fetch(new Request("http://conformance/cases"))).json()) as Array<{ id: number; name: string; skip: boolean }>;

afterAll(async () => {
  await worker.fetch(new Request("http://conformance/finish", { method: "POST" }));
  await worker.dispose();
});

describe("D1 store inside workerd (Miniflare D1 binding)", () => {
  it("the worker bundle imports no node: module and the migrations applied", () => {
    expect(bundle.nodeImports).toEqual([]);
    expect(applied).toEqual(["0000_initial"]);
    // The whole shared suite registered inside the worker (40-odd cases today), plus the D1 cases.
    expect(cases.filter((c) => c.name.startsWith("store conformance: d1 (workerd) >")).length).toBeGreaterThanOrEqual(40);
    expect(cases.filter((c) => c.name.startsWith("d1 store mapping >")).length).toBe(4);
  });

  it("migrateD1Database: a second run applies nothing; a failing migration leaves neither its tables nor its history row", async () => {
    const d1 = await worker.d1("DB");
    const lines: string[] = [];
    expect(await migrateD1Database(d1, readSqlMigrations(MIGRATIONS_FOLDERS.sqlite), { log: (line) => lines.push(line) })).toEqual([]);
    expect(lines).toEqual(["nothing to apply: the schema is up to date"]);
    // The second statement collides with an existing table: the batch rolls back the first one too.
    const broken = { name: "9999_broken.sql", sql: "CREATE TABLE `half_done` (`a` integer);\n--> statement-breakpoint\nCREATE TABLE `users` (`a` integer);" };
    await expect(migrateD1Database(d1, [broken])).rejects.toThrow(/already exists/);
    expect((await d1.prepare("select name from sqlite_master where name = 'half_done'").all()).results).toEqual([]);
    expect((await d1.prepare("select name from d1_migrations order by id").all()).results).toEqual([{ name: "0000_initial.sql" }]);
  });

  for (const c of cases) {
    (c.skip ? it.skip : it)(c.name, async () => {
      const result = (await (await worker.fetch(new Request(`http://conformance/cases/${c.id}`, { method: "POST" }))).json()) as { ok: boolean; error?: string };
      expect(result.error ?? null).toBeNull();
      expect(result.ok).toBe(true);
    });
  }
});
