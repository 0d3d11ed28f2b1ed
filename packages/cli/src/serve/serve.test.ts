import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../migrate/index.ts";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { fixture, PASSWORD, refused, SECRET, serve, signUp } from "./test-fixtures.ts";

describe("latchkey serve", { timeout: 60_000 }, () => {
  let sqlite: TestDatabase;
  beforeAll(async () => {
    sqlite = await createTestSqliteFile();
    await migrate(sqlite.url);
  });
  afterAll(() => sqlite?.dispose());

  it("serves a TypeScript config (a function of the environment) at its base path, /health, one JSON log line per request without secrets", async () => {
    const server = await serve(["--config", fixture("server.config.ts")], { DATABASE_URL: sqlite.url });
    try {
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
      const res = await signUp(server.url, "served@example.com");
      expect(res.status).toBe(200);
      const { credentials } = (await res.json()) as { credentials: { token: string } };
      const token = await fetch(`${server.url}/auth/token?probe=${credentials.token}`, {
        headers: { authorization: `Bearer ${credentials.token}` },
      });
      expect(token.status).toBe(200);
      const { token: jwt } = (await token.json()) as { token: string };
      expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);
      // The effect is in the database the config pointed at.
      const db = createClient({ url: sqlite.url });
      const rows = await db.execute({ sql: "select email from users where email = ?", args: ["served@example.com"] });
      db.close();
      expect(rows.rows).toHaveLength(1);

      // A line is written when its response has closed, which may be just after the client read it.
      const logged = () =>
        server
          .stdout()
          .split("\n")
          .filter((l) => l.startsWith("{"));
      while (logged().length < 4) await new Promise((r) => setTimeout(r, 20));
      const lines = logged().map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.map((l) => [l.method, l.path, l.status])).toEqual([
        ["GET", "/health", 200],
        ["POST", "/auth/sign-up/email", 200],
        ["GET", "/auth/token", 200],
        ["GET", "/nowhere", 404],
      ]);
      for (const line of lines) expect(typeof line.ms).toBe("number");
      const printed = server.stdout() + server.stderr();
      for (const secret of [PASSWORD, credentials.token, jwt, SECRET]) expect(printed).not.toContain(secret);
    } finally {
      server.child.kill("SIGTERM");
      expect(await server.exit).toBe(0);
    }
  });

  it("serves a plain .mjs config whose default export is the options object, at its own basePath, text log in development", async () => {
    const server = await serve(["--config", fixture("object.config.mjs")]);
    try {
      expect((await fetch(`${server.url}/api/auth/get-session`)).status).toBe(200);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      expect((await fetch(`${server.url}/auth/get-session`)).status).toBe(404);
      const line = /^GET \/api\/auth\/get-session 200 [\d.]+ms$/m;
      while (!line.test(server.stdout())) await new Promise((r) => setTimeout(r, 20));
      expect(server.stdout()).toMatch(line);
    } finally {
      server.child.kill("SIGTERM");
      expect(await server.exit).toBe(0);
    }
  });

  it("--proxy-hops (or LATCHKEY_PROXY_HOPS): behind a load balancer each client has its own rate-limit budget", async () => {
    const signIns = async (url: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await fetch(`${url}/api/auth/sign-in/email`, {
          method: "POST",
          // What a load balancer writes: the client's address, appended to whatever the client sent.
          headers: { "content-type": "application/json", "x-forwarded-for": `spoofed, 198.51.100.${i}` },
          // A new address each time, so the per-account lockout stays out of it.
          body: JSON.stringify({ email: `nobody${i}@example.com`, password: "not the password" }),
        });
        statuses.push(res.status);
      }
      return statuses;
    };
    const behind = await serve(["--config", fixture("object.config.mjs"), "--proxy-hops", "1"]);
    try {
      expect(await signIns(behind.url)).not.toContain(429);
    } finally {
      behind.child.kill("SIGTERM");
      expect(await behind.exit).toBe(0);
    }
    const direct = await serve(["--config", fixture("object.config.mjs")], { LATCHKEY_PROXY_HOPS: "" });
    try {
      // Without it, the socket's address: every request is the one loopback client.
      expect((await signIns(direct.url)).slice(-2)).toEqual([429, 429]);
    } finally {
      direct.child.kill("SIGTERM");
      expect(await direct.exit).toBe(0);
    }
    const both = await refused(["--config", fixture("own-client-ip.config.mjs")], { LATCHKEY_PROXY_HOPS: "2" });
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/sets getClientIp and --proxy-hops/);
    const bad = await refused(["--config", fixture("object.config.mjs"), "--proxy-hops", "two"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--proxy-hops must be an integer/);
  });

  it("refuses to start on an invalid config, naming the option (and the nearest valid one)", async () => {
    const result = await refused(["--config", fixture("invalid.config.mjs")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/invalid config: .*trustedOrigin.*trustedOrigins/);
    expect(result.stdout).not.toContain("listening");
  });

  it("an invalid config's open connections are closed, so the refusal ends the process", async () => {
    const result = await refused(["--config", fixture("open-handle.config.mjs")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/invalid config: secret/);
  });

  it("refuses to start when the config throws, when the file is missing, or when there is none in the folder", async () => {
    const short = await refused(["--config", fixture("server.config.ts")], {
      TEST_SECRET: "too short",
      DATABASE_URL: sqlite.url,
    });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/invalid config: secret must be a string of at least 32 characters/);
    const threw = await refused(["--config", fixture("server.config.ts")], { DATABASE_URL: "" });
    expect(threw.code).toBe(1);
    expect(threw.stderr).toMatch(/the default export of .*server\.config\.ts threw: expected a postgres:\/\//);
    const missing = await refused(["--config", "no-such.config.ts"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no-such\.config\.ts does not exist/);
    const empty = mkdtempSync(join(tmpdir(), "latchkey-serve-"));
    const none = await refused([], {}, empty);
    rmSync(empty, { recursive: true });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no latchkey\.config\.ts.*latchkey init/);
    const usage = await refused(["--port", "not-a-port"]);
    expect(usage.code).toBe(2);
  });

  it("refuses to start when the database does not answer within --database-wait", async () => {
    const result = await refused(["--config", fixture("server.config.ts"), "--database-wait", "1"], {
      TEST_SECRET: SECRET,
      DATABASE_URL: "postgres://latchkey:hunter2secret@127.0.0.1:9/nothing",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the database did not answer within 1 s/);
    // The driver's own reason, not the timeout of the last short attempt.
    expect(result.stderr).toMatch(/ECONNREFUSED/);
    expect(result.stderr).not.toMatch(/no answer within/);
    expect(result.stdout).not.toContain("listening");
    expect(result.stdout + result.stderr).not.toContain("hunter2secret");
  });
});
