// The installed CLI from the tarballs (consumers-setup.ts), in the plain project: `latchkey secret` and `migrate`,
// then `latchkey init` and `serve` (in this order: init writes the project's latchkey.config.ts); and the
// getting-started page run step by step in an empty folder.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTestPostgresDatabase, createTestSqliteFile } from "@latchkey/test-support";
import { packs, plain, root, work } from "./consumers-fixture.ts";
import { freePort, printed, run } from "./harness/projects.ts";
import { BAD_CONFIG, listening, printed as printedLine, SLOW_CONFIG, startServe } from "./harness/serve.ts";
import { docSteps, runDocSteps } from "./harness/doc-steps.ts";

describe("the installed CLI (npx latchkey)", () => {
  const latchkey = (args: string[]) =>
    run("npx", ["--no-install", "latchkey", ...args], { cwd: plain, timeoutMs: 60_000 });

  it("secret prints a fresh 64-character secret each time", async () => {
    const [a, b] = [await latchkey(["secret"]), await latchkey(["secret"])];
    expect(a.stdout.trim(), printed(a)).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(b.stdout.trim()).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(a.stdout).not.toBe(b.stdout);
  });

  /** Migrates the database twice: the first run applies the shipped migrations, the second finds nothing to do. */
  async function expectMigrateTwice(db: { url: string; dispose(): Promise<void> }): Promise<void> {
    try {
      const first = await latchkey(["migrate", "--database", db.url]);
      expect(first.code, printed(first)).toBe(0);
      expect(first.stdout).toContain("applied 0000_initial");
      const second = await latchkey(["migrate", "--database", db.url]);
      expect(second.code, printed(second)).toBe(0);
      expect(second.stdout).toContain("nothing to apply");
    } finally {
      await db.dispose();
    }
  }

  it("migrate applies the shipped migrations to a libSQL file, then nothing", async () => {
    await expectMigrateTwice(await createTestSqliteFile());
  });

  it("migrate applies them to PostgreSQL, then nothing", async () => {
    await expectMigrateTwice(await createTestPostgresDatabase());
  });
});

describe("the getting-started page (docs/getting-started.md), step by step", () => {
  it("an empty folder, npm install, a secret, server.mjs, node: sign-up, the protected route, sign-out, sign-in", async () => {
    const page = readFileSync(join(root, "docs/getting-started.md"), "utf8");
    const steps = docSteps(page);
    // The page's shape: what the reader runs, saves and starts, in that order.
    expect(steps.map((s) => s.kind)).toEqual(["sh", "sh", "file", "server", "sh", "sh"]);
    const dir = join(work, "getting-started");
    mkdirSync(dir);
    const { results, server, cwd } = await runDocSteps(steps, dir, packs, await freePort());
    try {
      expect(cwd).toBe(join(dir, "my-app"));
      expect(readFileSync(join(cwd, ".latchkey-secret"), "utf8").trim()).toMatch(/^[A-Za-z0-9]{64}$/);
      // Sign-up answers the user; the protected route greets them; sign-out succeeds; then /me is refused.
      const tryIt = results[2]!.stdout.split("\n");
      expect(JSON.parse(tryIt[0]!)).toMatchObject({ user: { email: "ada@example.com" } });
      expect(JSON.parse(tryIt[1]!)).toEqual({ hello: "ada@example.com" });
      expect(JSON.parse(tryIt[2]!)).toEqual({ success: true });
      expect(tryIt[3]).toBe("401");
      // Signed in again with the password: the route answers again.
      const again = results[3]!.stdout.split("\n");
      expect(JSON.parse(again[0]!)).toMatchObject({ user: { email: "ada@example.com" } });
      expect(JSON.parse(again[1]!)).toEqual({ hello: "ada@example.com" });
    } finally {
      await server?.stop();
    }
  });
});

describe("the installed `latchkey serve` and `latchkey init` (Node 20, no loader installed by the project)", () => {
  // The starter config refuses production without an email sender; on a laptop (plain HTTP) it is development.
  const env = (url: string, nodeEnv = "development") => ({
    LATCHKEY_SECRET: "c".repeat(64),
    LATCHKEY_DATABASE_URL: url,
    LATCHKEY_BASE_URL: "http://127.0.0.1",
    NODE_ENV: nodeEnv,
  });
  const signUp = (url: string, email: string) =>
    fetch(`${url}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "consumer serve password" }),
    });

  it("init writes latchkey.config.ts; serve runs it (TypeScript through the CLI's own loader) on PostgreSQL: health, sign-up, JWKS, request log; rotate-jwks", async () => {
    const db = await createTestPostgresDatabase();
    try {
      const init = await run("npx", ["--no-install", "latchkey", "init"], { cwd: plain, timeoutMs: 60_000 });
      expect(init.code, printed(init)).toBe(0);
      expect(init.stdout).toContain("npx latchkey serve");
      const migrated = await run("npx", ["--no-install", "latchkey", "migrate", "--database", db.url], {
        cwd: plain,
        timeoutMs: 60_000,
      });
      expect(migrated.code, printed(migrated)).toBe(0);
      const server = startServe(plain, ["--port", "0"], env(db.url));
      try {
        const url = await listening(server);
        expect((await fetch(`${url}/health`)).status).toBe(200);
        expect((await signUp(url, "served@example.com")).status).toBe(200);
        const jwks = (await (await fetch(`${url}/auth/jwks`)).json()) as { keys: unknown[] };
        expect(jwks.keys).toHaveLength(1);
        // Development's request log: one plain line per request (production's is JSON, tested in the CLI's suite).
        await printedLine(server, "POST /auth/sign-up/email ");
        expect(server.output()).toMatch(/^POST \/auth\/sign-up\/email 200 [\d.]+ms$/m);
        expect(server.output()).not.toContain("consumer serve password");
      } finally {
        server.child.kill("SIGTERM");
        expect(await server.exit).toBe(0);
      }
      // The operator's rotation from the same config (the JWKS had its first key from the request above).
      const rotated = await run("npx", ["--no-install", "latchkey", "rotate-jwks"], {
        cwd: plain,
        env: env(db.url),
        timeoutMs: 60_000,
      });
      expect(rotated.code, printed(rotated)).toBe(0);
      expect(rotated.stdout).toMatch(/^new signing key \S+;/);
    } finally {
      await db.dispose();
    }
  });

  it("SIGTERM with requests in flight: they finish and are stored, then the process ends by itself with 0", async () => {
    const db = await createTestPostgresDatabase();
    try {
      writeFileSync(join(plain, "slow.config.mjs"), SLOW_CONFIG);
      const migrated = await run("npx", ["--no-install", "latchkey", "migrate", "--database", db.url], {
        cwd: plain,
        timeoutMs: 60_000,
      });
      expect(migrated.code, printed(migrated)).toBe(0);
      const server = startServe(plain, ["--config", "slow.config.mjs", "--port", "0"], env(db.url));
      const url = await listening(server);
      const answers = [0, 1, 2].map((i) => signUp(url, `inflight-${i}@example.com`));
      await printedLine(server, "HASHING", 3);
      server.child.kill("SIGTERM");
      expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200]);
      expect(await server.exit).toBe(0);
      expect(server.output()).toContain("latchkey stopped");
      const stored = await run(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import pg from "pg"; const c = new pg.Client({ connectionString: process.argv[1] }); await c.connect(); const r = await c.query("select count(*)::int as n from users where email like 'inflight-%'"); console.log("USERS " + r.rows[0].n); await c.end();`,
          db.url,
        ],
        { cwd: plain },
      );
      expect(stored.stdout, printed(stored)).toContain("USERS 3");
    } finally {
      await db.dispose();
    }
  });

  it("a bad config and an unreachable database are refused at start with a clear message and exit 1", async () => {
    writeFileSync(join(plain, "bad.config.mjs"), BAD_CONFIG);
    const bad = startServe(plain, ["--config", "bad.config.mjs", "--port", "0"], {});
    expect(await bad.exit).toBe(1);
    expect(bad.output()).toMatch(/invalid config: .*sesion.*session/);
    const away = startServe(plain, ["--port", "0", "--database-wait", "1"], env("postgres://u:pw@127.0.0.1:9/none"));
    expect(await away.exit).toBe(1);
    expect(away.output()).toMatch(/the database did not answer within 1 s/);
    expect(away.output()).not.toContain("listening");
    const noSender = startServe(plain, ["--port", "0"], env("postgres://u:pw@127.0.0.1:9/none", "production"));
    expect(await noSender.exit).toBe(1);
    expect(noSender.output()).toMatch(/no email sender: production needs email\.sender/);
    expect(noSender.output()).not.toContain("listening");
  });
});
