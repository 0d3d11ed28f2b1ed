import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { createTestPostgresDatabase, createTestSqliteFile } from "@latchkey/test-support";
import { describe, expect, it } from "vitest";
import { importMiniflare, wranglerMiniflare } from "./d1.ts";
import { migrate } from "./migrate.ts";
import { latchkey, latchkeyWith, SUBPROCESS_TIMEOUT } from "./test-fixtures.ts";

// Migrating each kind of database. The tests that list the migrations are all in this file (a new migration is
// added to each list here); the URL handling and the password masking are in migrate-urls.test.ts, MongoDB in
// migrate-mongo.test.ts.

describe("latchkey migrate", () => {
  it("migrates a fresh libSQL file through the CLI; a second run applies nothing", SUBPROCESS_TIMEOUT, async () => {
    const database = await createTestSqliteFile();
    try {
      const first = await latchkey("migrate", "--database", database.url);
      expect(first).toMatchObject({ code: 0, stderr: "" });
      expect(first.stdout).toBe(
        `Migrating ${database.url}\napplied 0000_initial\napplied 0001_api_key_lifecycle\napplied 0002_session_remember_me\napplied 0003_app_metadata\napplied 0004_counters_reset_at_index\napplied 0005_partial_nullable_indexes\napplied 0006_two_factor\napplied 0007_social_accounts\napplied 0008_passkeys\napplied 0009_admin\napplied 0010_organizations\napplied 0011_impersonation_index\napplied 0012_organization_api_keys\n`,
      );
      const second = await latchkey("migrate", `--database=${database.url}`);
      expect(second).toMatchObject({
        code: 0,
        stdout: `Migrating ${database.url}\nnothing to apply: the schema is up to date\n`,
      });
    } finally {
      await database.dispose();
    }
  });

  it(
    "migrates a fresh PostgreSQL database (postgres:// and postgresql://) and reports what it applied",
    SUBPROCESS_TIMEOUT,
    async () => {
      const database = await createTestPostgresDatabase();
      try {
        const lines: string[] = [];
        expect(await migrate(database.url, { log: (line) => lines.push(line) })).toEqual([
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
        expect(await migrate(database.url.replace(/^postgres:/, "postgresql:"))).toEqual([]);
        expect(lines).toEqual([
          "applied 0000_initial",
          "applied 0001_api_key_lifecycle",
          "applied 0002_session_remember_me",
          "applied 0003_app_metadata",
          "applied 0004_counters_reset_at_index",
          "applied 0005_partial_nullable_indexes",
          "applied 0006_two_factor",
          "applied 0007_social_accounts",
          "applied 0008_passkeys",
          "applied 0009_admin",
          "applied 0010_organizations",
          "applied 0011_impersonation_index",
          "applied 0012_organization_api_keys",
        ]);
        const again = await latchkey("migrate", "--database", database.url);
        expect(again.code).toBe(0);
        expect(again.stdout).toContain("nothing to apply");
      } finally {
        await database.dispose();
      }
    },
  );

  it("migrates the local D1 of wrangler dev (--d1, --persist-to) and records wrangler's d1_migrations table", {
    timeout: 60_000,
  }, async () => {
    const state = mkdtempSync(join(tmpdir(), "latchkey-wrangler-state-"));
    try {
      const first = await latchkey("migrate", "--d1", "DB", "--persist-to", state);
      expect(first).toMatchObject({ code: 0, stderr: "" });
      expect(first.stdout).toBe(
        `Migrating local D1 DB in ${state}\napplied 0000_initial\napplied 0001_api_key_lifecycle\napplied 0002_session_remember_me\napplied 0003_app_metadata\napplied 0004_counters_reset_at_index\napplied 0005_partial_nullable_indexes\napplied 0006_two_factor\napplied 0007_social_accounts\napplied 0008_passkeys\napplied 0009_admin\napplied 0010_organizations\napplied 0011_impersonation_index\napplied 0012_organization_api_keys\n`,
      );
      const second = await latchkey("migrate", "--d1=DB", `--persist-to=${state}`);
      expect(second).toMatchObject({
        code: 0,
        stdout: `Migrating local D1 DB in ${state}\nnothing to apply: the schema is up to date\n`,
      });
      // Where wrangler keeps local D1 files, and opened the way `wrangler dev` opens a binding named DB.
      expect(readdirSync(join(state, "v3/d1/miniflare-D1DatabaseObject")).some((f) => f.endsWith(".sqlite"))).toBe(
        true,
      );
      const mf = new Miniflare({
        modules: true,
        script: "export default { fetch() { return new Response(null); } }",
        d1Databases: { DB: "DB" },
        d1Persist: join(state, "v3/d1"),
      });
      try {
        const db = await mf.getD1Database("DB");
        expect((await db.prepare("select id, name from d1_migrations").all()).results).toEqual([
          { id: 1, name: "0000_initial.sql" },
          { id: 2, name: "0001_api_key_lifecycle.sql" },
          { id: 3, name: "0002_session_remember_me.sql" },
          { id: 4, name: "0003_app_metadata.sql" },
          { id: 5, name: "0004_counters_reset_at_index.sql" },
          { id: 6, name: "0005_partial_nullable_indexes.sql" },
          { id: 7, name: "0006_two_factor.sql" },
          { id: 8, name: "0007_social_accounts.sql" },
          { id: 9, name: "0008_passkeys.sql" },
          { id: 10, name: "0009_admin.sql" },
          { id: 11, name: "0010_organizations.sql" },
          { id: 12, name: "0011_impersonation_index.sql" },
          { id: 13, name: "0012_organization_api_keys.sql" },
        ]);
        const tables = (
          await db.prepare("select name from sqlite_master where type = 'table' and name = 'users'").all()
        ).results;
        expect(tables).toEqual([{ name: "users" }]);
      } finally {
        await mf.dispose();
      }
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });

  it("--d1 opens wrangler's local state with wrangler's own Miniflare when the project has wrangler", async () => {
    const project = mkdtempSync(join(tmpdir(), "latchkey-wrangler-project-"));
    try {
      expect(wranglerMiniflare(project)).toBeNull();
      const own = join(project, "node_modules/wrangler/node_modules/miniflare");
      mkdirSync(own, { recursive: true });
      writeFileSync(
        join(project, "node_modules/wrangler/package.json"),
        JSON.stringify({ name: "wrangler", version: "4.0.0" }),
      );
      writeFileSync(
        join(own, "package.json"),
        JSON.stringify({ name: "miniflare", version: "5.0.0", main: "index.js" }),
      );
      writeFileSync(join(own, "index.js"), "exports.Miniflare = class {};\n");
      expect(wranglerMiniflare(project)).toBe(join(own, "index.js"));
      const missing = () =>
        Promise.reject(
          Object.assign(new Error("Cannot find package 'miniflare' imported from cli"), {
            code: "ERR_MODULE_NOT_FOUND",
          }),
        );
      await expect(importMiniflare(missing)).rejects.toThrow(
        /Miniflare, which is not installed: npm install -D wrangler/,
      );
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it("refuses --d1 together with --database, with the usage and exit code 2", SUBPROCESS_TIMEOUT, async () => {
    const both = await latchkey("migrate", "--d1", "DB", "--database", "file:./x.db");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("latchkey migrate --d1 <local-id>");
  });

  it(
    "takes the URL from LATCHKEY_DATABASE_URL, so it stays out of ps and the shell history",
    SUBPROCESS_TIMEOUT,
    async () => {
      const database = await createTestSqliteFile();
      try {
        const ok = await latchkeyWith({ LATCHKEY_DATABASE_URL: database.url }, "migrate");
        expect(ok).toMatchObject({ code: 0, stderr: "" });
        expect(ok.stdout).toBe(
          `Migrating ${database.url}\napplied 0000_initial\napplied 0001_api_key_lifecycle\napplied 0002_session_remember_me\napplied 0003_app_metadata\napplied 0004_counters_reset_at_index\napplied 0005_partial_nullable_indexes\napplied 0006_two_factor\napplied 0007_social_accounts\napplied 0008_passkeys\napplied 0009_admin\napplied 0010_organizations\napplied 0011_impersonation_index\napplied 0012_organization_api_keys\n`,
        );
        const failed = await latchkeyWith(
          { LATCHKEY_DATABASE_URL: "postgres://app:S3cret-env@127.0.0.1:1/auth" },
          "migrate",
        );
        expect(failed.code).toBe(1);
        expect(failed.stdout + failed.stderr).toContain("postgres://app:***@127.0.0.1:1/auth");
        expect(failed.stdout + failed.stderr).not.toContain("S3cret-env");
      } finally {
        await database.dispose();
      }
    },
  );
});
