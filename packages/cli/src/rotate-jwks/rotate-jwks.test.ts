import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClient } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { migrate } from "../migrate/index.ts";

const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../serve/fixtures/${name}`, import.meta.url));
const run = promisify(execFile);

async function latchkey(env: Record<string, string>, ...args: string[]) {
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

describe("latchkey rotate-jwks", { timeout: 60_000 }, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestSqliteFile();
    await migrate(db.url);
  });
  afterAll(() => db?.dispose());

  const keys = async () => {
    const client = createClient({ url: db.url });
    try {
      const { rows } = await client.execute("select id, retired_at from jwks order by generation");
      return rows.map((r) => ({ id: String(r.id), retired: r.retired_at !== null }));
    } finally {
      client.close();
    }
  };

  it("creates a new signing key in the config's database and retires the previous one, each run", async () => {
    const env = { TEST_SECRET: "rotate-test-secret-0123456789abcdef-01234", DATABASE_URL: db.url };
    const first = await latchkey(env, "rotate-jwks", "--config", fixture("server.config.ts"));
    expect(first.code, first.stderr).toBe(0);
    const kid1 = /new signing key (\S+);/.exec(first.stdout)?.[1];
    expect(await keys()).toEqual([{ id: kid1, retired: false }]);
    const second = await latchkey(env, "rotate-jwks", "--config", fixture("server.config.ts"));
    expect(second.code, second.stderr).toBe(0);
    const kid2 = /new signing key (\S+);/.exec(second.stdout)?.[1];
    expect(kid2).not.toBe(kid1);
    expect(await keys()).toEqual([
      { id: kid1, retired: true },
      { id: kid2, retired: false },
    ]);

    // Another secret cannot open the current key: refused without --force, done with it (the documented recovery).
    const other = { ...env, TEST_SECRET: "another-secret-0123456789abcdef-0123456789" };
    const refused = await latchkey(other, "rotate-jwks", "--config", fixture("server.config.ts"));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/latchkey rotate-jwks: .*decrypt|unreadable/i);
    expect((await keys()).filter((k) => !k.retired)).toEqual([{ id: kid2, retired: false }]);
    const forced = await latchkey(other, "rotate-jwks", "--config", fixture("server.config.ts"), "--force");
    expect(forced.code, forced.stderr).toBe(0);
    expect((await keys()).filter((k) => !k.retired).map((k) => k.id)).not.toContain(kid2);
  });

  it("says so when the config has no jwt() plugin, or is invalid", async () => {
    const none = await latchkey({}, "rotate-jwks", "--config", fixture("object.config.mjs"));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/does not install the jwt\(\) plugin/);
    const invalid = await latchkey({}, "rotate-jwks", "--config", fixture("invalid.config.mjs"));
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/invalid config: .*trustedOrigin/);
  });
});
