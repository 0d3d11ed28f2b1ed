import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { promisify } from "node:util";
import { createTestPostgresDatabase, createTestSqliteFile } from "@latchkey/test-support";
import { describe, expect, it } from "vitest";
import { importMiniflare, wranglerMiniflare } from "./d1.ts";
import { databaseKind, importMongoStore, loadMongoMigrator, migrate, migrateWith, redactUrl } from "./migrate.ts";

const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const run = promisify(execFile);

async function latchkey(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return latchkeyWith({}, ...args);
}

async function latchkeyWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      encoding: "utf8",
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// Each run of the bin starts Node (up to a second on a loaded two-core machine).
const SUBPROCESS_TIMEOUT = { timeout: 30_000 };

const notInstalled = () =>
  Promise.reject(
    Object.assign(new Error("Cannot find package '@latchkey/mongo-store' imported from cli"), {
      code: "ERR_MODULE_NOT_FOUND",
    }),
  );

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
    "refuses a missing or unsupported --database with the usage and exit code 2, printing no password",
    SUBPROCESS_TIMEOUT,
    async () => {
      const missing = await latchkey("migrate");
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("latchkey migrate --database <url>");
      const mysql = await latchkey("migrate", "--database", "mysql://root:hunter2@localhost/app");
      expect(mysql.code).toBe(2);
      expect(mysql.stderr).toContain("unsupported database URL mysql://root:***@localhost/app");
      expect(mysql.stderr + mysql.stdout).not.toContain("hunter2");
      const dsn = await latchkey("migrate", "--database", "host=localhost user=app password=hunter3 dbname=app");
      expect(dsn.code).toBe(2);
      expect(dsn.stderr).toContain("unsupported database URL host=localhost user=app password=*** dbname=app");
      expect(dsn.stderr + dsn.stdout).not.toContain("hunter3");
      await expect(migrate("mysql://localhost/app")).rejects.toThrow(
        /expected postgres:\/\/, postgresql:\/\/, file:, libsql:\/\/ or mongodb:\/\//,
      );
    },
  );

  it("hands mongodb:// URLs to migrateMongo of @latchkey/mongo-store", async () => {
    const calls: string[] = [];
    const fake = {
      migrateMongo: async (url: string, { log }: { log: (line: string) => void }) => (
        calls.push(url), log("created indexes"), ["users.email_unique"]
      ),
    };
    const lines: string[] = [];
    const applied = await migrateWith(
      "mongodb://127.0.0.1:27017/app",
      { log: (line) => lines.push(line) },
      async () => fake,
    );
    expect(applied).toEqual(["users.email_unique"]);
    expect(calls).toEqual(["mongodb://127.0.0.1:27017/app"]);
    expect(lines).toEqual(["created indexes"]);
  });

  it("finds migrateMongo in the installed @latchkey/mongo-store", async () => {
    expect(await loadMongoMigrator(importMongoStore)).toBeTypeOf("function");
  });

  it("says which package to install when @latchkey/mongo-store is absent, and keeps other load errors", async () => {
    await expect(migrateWith("mongodb://localhost/app", {}, notInstalled)).rejects.toThrow(
      /@latchkey\/mongo-store, which is not installed/,
    );
    await expect(migrateWith("mongodb://localhost/app", {}, async () => ({}))).rejects.toThrow(
      /does not export migrateMongo/,
    );
    const broken = () => Promise.reject(new Error("mongodb driver exploded"));
    await expect(migrateWith("mongodb://localhost/app", {}, broken)).rejects.toThrow("mongodb driver exploded");
  });

  it("classifies URLs and masks passwords and auth tokens", () => {
    expect(
      [
        "postgres://h/d",
        "postgresql://h/d",
        "file:/tmp/a.db",
        "libsql://db.example.io",
        "mongodb+srv://c/d",
        "mysql://h/d",
      ].map(databaseKind),
    ).toEqual(["postgres", "postgres", "sqlite", "sqlite", "mongodb", null]);
    expect(redactUrl("postgres://app:s3cret@db:5432/auth")).toBe("postgres://app:***@db:5432/auth");
    expect(redactUrl("libsql://db.example.io?authToken=eyJhbGciOi")).toBe("libsql://db.example.io?authToken=***");
    expect(redactUrl("file:./auth.db")).toBe("file:./auth.db");
  });

  it("masks multi-host user-info and password parameters, which new URL() cannot parse", () => {
    expect(redactUrl("mongodb://admin:S3cret@db1,db2/app?replicaSet=rs0")).toBe(
      "mongodb://admin:***@db1,db2/app?replicaSet=rs0",
    );
    expect(redactUrl("mongodb://admin:p@ss:w0rd@db1:27017,db2:27017/app")).toBe(
      "mongodb://admin:***@db1:27017,db2:27017/app",
    );
    expect(redactUrl("postgres://db/auth?user=app&password=S3cret&sslmode=require")).toBe(
      "postgres://db/auth?user=app&password=***&sslmode=require",
    );
    expect(redactUrl("postgresql://app@db/auth?sslpassword=k3y&PASSWORD=x")).toBe(
      "postgresql://app@db/auth?sslpassword=***&PASSWORD=***",
    );
    expect(redactUrl("file:./auth.db?authToken=abc")).toBe("file:./auth.db?authToken=***");
  });

  // Issue 50, item 6: the user-info ended at the first `/`, `?` or `#`, and keyword DSNs were echoed whole.
  it("takes the user-info up to the last @ before the host, and masks password= in keyword DSNs", async () => {
    expect(redactUrl("postgres://admin:S3c/ret@host/db")).toBe("postgres://admin:***@host/db");
    expect(redactUrl("postgres://admin:S3c?r#e@t@host:5432/db?sslmode=require&password=two")).toBe(
      "postgres://admin:***@host:5432/db?sslmode=require&password=***",
    );
    expect(redactUrl("mongodb://admin:a/b@c@db1,db2/app")).toBe("mongodb://admin:***@db1,db2/app");
    expect(redactUrl("postgres://db/auth")).toBe("postgres://db/auth");
    expect(redactUrl("host=db.internal port=5432 user=app password=S3cret dbname=auth")).toBe(
      "host=db.internal port=5432 user=app password=*** dbname=auth",
    );
    expect(redactUrl("host=db password = 'S3 c\\'ret' sslpassword=k3y user=app")).toBe(
      "host=db password = *** sslpassword=*** user=app",
    );
    // The "unsupported database URL" error of migrate and sweep.
    const dsn = "host=127.0.0.1 user=app password=S3cret-dsn dbname=auth";
    await expect(migrate(dsn)).rejects.toThrow(
      "unsupported database URL host=127.0.0.1 user=app password=*** dbname=auth",
    );
    await expect(migrate(dsn)).rejects.not.toThrow(/S3cret/);
    await expect(migrate("mysql://root:S3c/ret@db/app")).rejects.toThrow(
      "unsupported database URL mysql://root:***@db/app",
    );
    await expect(migrate("mysql://root:S3c/ret@db/app")).rejects.not.toThrow(/S3c|ret@/);
  });

  it(
    "latchkey migrate never prints a database password: multi-host user-info, ?password=, driver errors",
    SUBPROCESS_TIMEOUT,
    async () => {
      const attempts = [
        ["--database", "postgres://app:S3cret-one@127.0.0.1:1/auth"],
        ["--database=postgres://127.0.0.1:1/auth?user=app&password=S3cret-two"],
        [
          "--database",
          "mongodb://admin:S3cret-three@127.0.0.1:1,127.0.0.2:1/app?serverSelectionTimeoutMS=300&connectTimeoutMS=300",
        ],
        ["--database", "postgres://app:S3cret/four@127.0.0.1:1/auth"],
      ];
      for (const args of attempts) {
        const result = await latchkey("migrate", ...args);
        expect(result.code, args.join(" ")).toBe(1);
        const printed = result.stdout + result.stderr;
        expect(printed).toMatch(/Migrating .*\*\*\*/);
        expect(printed).not.toMatch(/S3cret/);
      }
    },
  );

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
