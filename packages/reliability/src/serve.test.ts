// The same Latchkey as two `latchkey serve` processes (the CLI, from serve.config.mjs) on one PostgreSQL with
// Redis counters, as N instances behind a load balancer: sessions, limits and quotas are shared, and a rolling
// restart (SIGTERM to one instance under load, then a fresh start) loses no accepted request and leaves nothing
// half-written.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "@latchkey/drizzle-store";
import { createTestPostgresDatabase, type TestDatabase } from "@latchkey/test-support";
import { startTestRedis, type TestRedisServer } from "../../../test/redis-server.ts";
import { freshIp, query } from "./harness.ts";

const CLI = fileURLToPath(new URL("../node_modules/@latchkey/cli/dist/bin.js", import.meta.url));
const CONFIG = fileURLToPath(new URL("./serve.config.mjs", import.meta.url));
const PASSWORD = "serve reliability password";
const LOAD_MS = Number(process.env.LATCHKEY_RELIABILITY_SERVE_LOAD_MS ?? 6000);

interface Server {
  name: string;
  port: number;
  child: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
}

async function startServe(name: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, [CLI, "serve", "--config", CONFIG, "--port", "0", "--drain-timeout", "10"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const collect = (d: Buffer) => {
    text += d.toString();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  for (;;) {
    const match = /latchkey listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
    if (match) return { name, port: Number(match[1]), child, output: () => text, exit };
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Answer {
  status: number;
  body: string;
  /** Set when no answer came: ECONNREFUSED (nothing listening) or a cut connection. */
  error?: string;
}

/**
 * One request on its own connection (no keep-alive), as a load balancer's health-checked pool would send it: an
 * instance that stopped listening refuses the connection, and then nothing was sent to it.
 */
function call(server: Server, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return new Promise<Answer>((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: server.port,
        method,
        path,
        agent: false,
        timeout: 15_000,
        headers: {
          "x-test-ip": headers["x-test-ip"] ?? freshIp(),
          ...(payload ? { "content-type": "application/json" } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => {
          text += d.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("error", (error) => resolve({ status: 0, body: text, error: String(error) }));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ status: 0, body: "", error: error.code ?? String(error) }),
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.end(payload);
  });
}

type Sign = { user: { id: string }; session: { id: string }; credentials: { token: string } };

let db: TestDatabase;
let redis: TestRedisServer;
let env: Record<string, string>;
let a: Server;
let b: Server;

beforeAll(async () => {
  [db, redis] = await Promise.all([createTestPostgresDatabase(), startTestRedis()]);
  await migrateDatabase(db.url);
  env = { DATABASE_URL: db.url, REDIS_URL: redis.url, SECRET: randomBytes(32).toString("hex") };
  [a, b] = await Promise.all([startServe("A", env), startServe("B", env)]);
});

afterAll(async () => {
  for (const server of [a, b]) {
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exit;
    }
  }
  await redis?.stop();
  await db?.dispose();
});

describe("two `latchkey serve` processes on one PostgreSQL with Redis counters", () => {
  it("both are healthy; a session made on one is seen by the other", async () => {
    for (const server of [a, b]) expect(await call(server, "GET", "/health")).toMatchObject({ status: 200 });
    const signUp = await call(a, "POST", "/auth/sign-up/email", { email: "both@example.com", password: PASSWORD });
    expect(signUp.status, signUp.body).toBe(200);
    const { credentials, user } = JSON.parse(signUp.body) as Sign;
    const seen = await call(b, "GET", "/auth/get-session", undefined, { authorization: `Bearer ${credentials.token}` });
    expect(JSON.parse(seen.body)).toMatchObject({ user: { id: user.id } });
  });

  it("per-IP limits live in Redis: 30 sign-ins from one address across both, exactly 10 get through", async () => {
    const ip = freshIp();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(
          i % 2 ? a : b,
          "POST",
          "/auth/sign-in/email",
          { email: `nobody-${i}@example.com`, password: "wrong" },
          {
            "x-test-ip": ip,
          },
        ),
      ),
    );
    expect(answers.filter((r) => r.status === 401)).toHaveLength(10);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(20);
    const keys = spawnSync("redis-cli", ["-p", String(redis.port), "--scan", "--pattern", "serve:*"], {
      encoding: "utf8",
    });
    expect(keys.stdout.split("\n").filter(Boolean).length).toBeGreaterThan(0);
  });

  it("an API key's quota is exact across both: 120 parallel verifies, 40 valid, none left", async () => {
    const owner = JSON.parse(
      (await call(a, "POST", "/auth/sign-up/email", { email: "quota@example.com", password: PASSWORD })).body,
    ) as Sign;
    const created = await call(
      b,
      "POST",
      "/auth/api-key/create",
      { name: "quota" },
      {
        authorization: `Bearer ${owner.credentials.token}`,
      },
    );
    expect(created.status, created.body).toBe(200);
    const { key, apiKey } = JSON.parse(created.body) as { key: string; apiKey: { id: string; remaining: number } };
    expect(apiKey.remaining).toBe(40);
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, i) => call(i % 2 ? a : b, "POST", "/auth/api-key/verify", { key })),
    );
    expect(answers.filter((r) => r.status !== 200)).toEqual([]);
    expect(answers.filter((r) => (JSON.parse(r.body) as { valid: boolean }).valid)).toHaveLength(40);
    expect(await query(db.url, "select remaining from api_keys where id = $1", [apiKey.id])).toEqual([
      { remaining: 0 },
    ]);
  });

  it("rolling restart under load: SIGTERM to A drains it (every request it accepted is answered), B keeps serving, a new A joins, the database reconciles", async () => {
    const signedUp = new Map<string, string>(); // email -> session id
    const attempted = new Set<string>();
    const unanswered: string[] = [];
    const unexpected: string[] = [];
    const resetBeforeAccept: string[] = [];
    let refusedByA = 0;
    let aDown = false;
    let seq = 0;
    const until = Date.now() + LOAD_MS;
    let signalled = false;
    const lane = async (n: number) => {
      while (Date.now() < until) {
        // The load balancer: both while A is up; B only once A refused a connection.
        const target = !aDown && seq % 2 === 0 ? a : b;
        const email = `roll-${n}-${seq++}@example.com`;
        attempted.add(email);
        const answer = await call(target, "POST", "/auth/sign-up/email", { email, password: PASSWORD });
        if (answer.status === 200) signedUp.set(email, (JSON.parse(answer.body) as Sign).session.id);
        else if (answer.status === 0 && target === a && answer.error === "ECONNREFUSED") {
          refusedByA++;
          aDown = true;
        } else if (answer.status === 0 && target === a && answer.error === "ECONNRESET" && answer.body === "") {
          // A connect that raced the listener closing: the kernel had completed the handshake but A never took the
          // connection, so Linux resets it. Nothing reached A; A's log and the database below prove it.
          resetBeforeAccept.push(email);
          aDown = true;
        } else if (answer.status === 0) unanswered.push(`${target.name}: ${answer.error}`);
        else unexpected.push(`${target.name}: ${answer.status} ${answer.body.slice(0, 120)}`);
        if (!signalled && Date.now() > until - LOAD_MS / 2) {
          signalled = true;
          a.child.kill("SIGTERM");
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, (_, n) => lane(n)));
    expect(signalled).toBe(true);
    expect(await a.exit).toBe(0);
    expect(a.output()).toContain("latchkey stopped");
    // No request A accepted went unanswered, and nothing but success came back.
    expect(unanswered).toEqual([]);
    expect(unexpected).toEqual([]);
    // A logs every request it took with its status; none was cut before its answer was written.
    expect(a.output()).not.toMatch(/\(aborted\)|"aborted":true/);
    expect(resetBeforeAccept.length).toBeLessThanOrEqual(6);
    expect(signedUp.size).toBeGreaterThan(10);

    // Every success is in the database with its account and its session; no user came from nowhere or is
    // missing either (a half-written sign-up).
    const users = await query<{ email: string; accounts: string; sessions: string }>(
      db.url,
      `select u.email,
        (select count(*) from accounts c where c.user_id = u.id)::text as accounts,
        (select count(*) from sessions s where s.user_id = u.id)::text as sessions
       from users u where u.email like 'roll-%'`,
    );
    for (const u of users) {
      expect(attempted.has(u.email)).toBe(true);
      expect([u.accounts, u.sessions]).toEqual(["1", "1"]);
    }
    expect(new Set(users.map((u) => u.email))).toEqual(new Set(signedUp.keys()));
    const sessionIds = new Set(
      (
        await query<{ id: string }>(
          db.url,
          "select s.id from sessions s join users u on u.id = s.user_id where u.email like 'roll-%'",
        )
      ).map((s) => s.id),
    );
    for (const id of signedUp.values()) expect(sessionIds.has(id)).toBe(true);

    // The new A joins and sees what B wrote meanwhile.
    a = await startServe("A2", env);
    expect((await call(a, "GET", "/health")).status).toBe(200);
    const [email] = [...signedUp.keys()].slice(-1);
    const signIn = await call(a, "POST", "/auth/sign-in/email", { email, password: PASSWORD });
    expect(signIn.status, signIn.body).toBe(200);
    console.log(
      `rolling restart: ${signedUp.size} sign-ups, ${refusedByA} refused by the stopped A (then routed to B)`,
    );
  });
});
