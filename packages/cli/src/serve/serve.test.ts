import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@libsql/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../migrate/index.ts";
import { createTestPostgresDatabase, createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";

const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const SECRET = "serve-test-secret-0123456789abcdef-0123456789";
const PASSWORD = "a serve test password";

interface Served {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

/** Runs `latchkey serve` (the built bin) and resolves once it says where it listens, or rejects if it exits first. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], {
    env: { ...process.env, TEST_SECRET: SECRET, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => void (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => void (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /latchkey listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on("data", check);
    void exit.then((code) => reject(new Error(`latchkey serve exited (${code}) before listening:\n${out}\n${err}`)));
  });
  return { child, url, exit, stdout: () => out, stderr: () => err };
}

/** Runs `latchkey serve` expecting it to refuse to start. */
async function refused(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => void (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => void (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return { code, stdout: out, stderr: err };
}

const signUp = (url: string, email: string) =>
  fetch(`${url}/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD }),
  });

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

  it("SIGTERM on PostgreSQL: the requests in flight finish and are stored, new connections are refused, the pool closes and the process ends with 0", async () => {
    const db = await createTestPostgresDatabase();
    try {
      await migrate(db.url);
      const server = await serve(["--config", fixture("server.config.ts")], {
        DATABASE_URL: db.url,
        HASH_GATE: "1500",
      });
      const emails = Array.from({ length: 4 }, (_, i) => `drain-${i}@example.com`);
      const answers = emails.map((email) => signUp(server.url, email));
      // Every sign-up is inside the server (hashing its password) before the signal.
      while (server.stderr().split("HASHING").length - 1 < emails.length) await new Promise((r) => setTimeout(r, 20));
      server.child.kill("SIGTERM");
      while (!server.stdout().includes("SIGTERM: finishing")) await new Promise((r) => setTimeout(r, 20));
      await expect(fetch(`${server.url}/health`)).rejects.toThrow();
      const statuses = await Promise.all(answers.map(async (a) => (await a).status));
      expect(statuses).toEqual([200, 200, 200, 200]);
      // Exits by itself: a pool left open would keep the process alive past the test's timeout.
      expect(await server.exit).toBe(0);
      expect(server.stdout()).toContain("latchkey stopped");
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query<{ email: string }>(
        "select email from users where email like 'drain-%' order by email",
      );
      await client.end();
      expect(rows.map((r) => r.email)).toEqual(emails);
    } finally {
      await db.dispose();
    }
  });

  it("SIGTERM: a connection opened before the signal whose request arrives after it is answered (with connection: close), an idle keep-alive one is closed", async () => {
    const server = await serve(["--config", fixture("object.config.mjs")]);
    const { port } = new URL(server.url);
    const open = async () => {
      const socket = connect(Number(port), "127.0.0.1");
      await once(socket, "connect");
      let text = "";
      socket.on("data", (d: Buffer) => void (text += d.toString()));
      const closed = once(socket, "close");
      return { socket, text: () => text, closed };
    };
    const request = "GET /api/auth/get-session HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n";
    // One keep-alive connection that has carried a request and now waits for the next.
    const idle = await open();
    idle.socket.write(request);
    while (!idle.text().includes("\r\n\r\n")) await new Promise((r) => setTimeout(r, 10));
    // One the server accepted whose request is still on its way.
    const fresh = await open();
    fresh.socket.on("error", () => undefined);
    server.child.kill("SIGTERM");
    while (!server.stdout().includes("SIGTERM: finishing")) await new Promise((r) => setTimeout(r, 10));
    await idle.closed;
    fresh.socket.write(request);
    await fresh.closed;
    expect(fresh.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(fresh.text().toLowerCase()).toContain("connection: close");
    expect(await server.exit).toBe(0);
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
