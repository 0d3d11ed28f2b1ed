// Where the CPU of one OTP round trip (send + sign-in of a new user) goes on a libSQL file, in process (no HTTP):
// the process's CPU per round trip, split between the two requests, and the CPU of every SQL statement the libsql
// engine ran (bound and stepped through its better-sqlite3 API; each statement's text is shortened). With
// `--wal-frames` the WAL is never checkpointed and the frames written per round trip are counted.
// The bench's otp-round-trip scenario adds Node's HTTP work for three requests on top of this.
// `--no-statements` leaves the statements untimed: the process CPU without the timing's own cost (a cpuUsage call
// before and after each statement), for A/B comparisons of the total.
// `--concurrency=k` keeps k round trips in flight at once (the bench's load keeps 32 connections busy); the split
// between the two requests is then not printed (their CPU overlaps).
// `--twice` runs every lookup (a SELECT) a second time right after the first, both timed apart (listed as "first"
// and "second"): what the same statement costs when the request's JavaScript has not run in between. The listing's
// own line for that statement is then a third, warm run, and the totals include the two extra runs.
//   node --import tsx src/micro/otp-statements.ts [--n=3000] [--warmup=300] [--wal-frames] [--no-statements]
//     [--concurrency=1] [--twice]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { apiKeys, emailOtp, jwt } from "@latchkey/core";
import { migrateDatabase, drizzleStore } from "@latchkey/drizzle-store/sqlite";
import { createAuth } from "@latchkey/hono-adapter";

const flag = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split("=")[1]) : fallback;
};
const N = flag("n", 3000);
const WARMUP = flag("warmup", 300);
const WAL_FRAMES = process.argv.includes("--wal-frames");
const CONCURRENCY = Math.max(1, flag("concurrency", 1));
const TIME_STATEMENTS = !process.argv.includes("--no-statements");
const TWICE = process.argv.includes("--twice");

// The engine the store loads (`libsql`, through @libsql/client's dependency), patched before the store opens it.
const require = createRequire(import.meta.url);
const Engine = require(require.resolve("libsql", { paths: [require.resolve("@libsql/client")] })) as {
  prototype: { prepare(sql: string): object; exec(sql: string): unknown };
  new (path: string): { prepare(sql: string): object; close(): void };
};
type Timed = { n: number; cpuUs: number };
const statements = new Map<string, Timed>();
let measuring = false;
const sqlOf = new WeakMap<object, string>();
const prepare = Engine.prototype.prepare;
Engine.prototype.prepare = function (this: unknown, sql: string) {
  const statement = prepare.call(this, sql);
  sqlOf.set(statement, sql);
  return statement;
};
const probe = new Engine(":memory:");
const statementProto = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, unknown>;
probe.close();
const record = (key: string, cpuUs: number) => {
  const entry = statements.get(key) ?? { n: 0, cpuUs: 0 };
  entry.n += 1;
  entry.cpuUs += cpuUs;
  statements.set(key, entry);
};
// `all` iterates in JS, so its rows are counted under `all` alone (not again under `iterate`).
let depth = 0;
for (const method of ["run", "get", "all", "iterate"] as const) {
  const original = statementProto[method] as (...args: unknown[]) => unknown;
  statementProto[method] = function (this: object, ...args: unknown[]) {
    if (!measuring || !TIME_STATEMENTS || depth > 0) return original.apply(this, args);
    depth += 1;
    const sql = sqlOf.get(this) ?? "?";
    if (TWICE && method !== "run" && /^select /i.test(sql)) {
      // The lookup once more, timed apart from the call below; a SELECT changes nothing, so its rows are the same.
      const label = sql.replace(/\s+/g, " ").slice(0, 90);
      const first = process.cpuUsage();
      original.apply(this, args);
      const firstSpent = process.cpuUsage(first);
      record(`first  ${method} ${label}`, firstSpent.user + firstSpent.system);
      const second = process.cpuUsage();
      original.apply(this, args);
      const secondSpent = process.cpuUsage(second);
      record(`second ${method} ${label}`, secondSpent.user + secondSpent.system);
    }
    const before = process.cpuUsage();
    try {
      return original.apply(this, args);
    } finally {
      const spent = process.cpuUsage(before);
      depth -= 1;
      record(`${method} ${sql.replace(/\s+/g, " ").slice(0, 100)}`, spent.user + spent.system);
    }
  };
}
if (WAL_FRAMES) {
  const exec = Engine.prototype.exec;
  Engine.prototype.exec = function (this: unknown, sql: string) {
    return exec.call(this, /^PRAGMA /i.test(sql) ? `${sql}; PRAGMA wal_autocheckpoint = 0` : sql);
  };
}

const dir = mkdtempSync(join(tmpdir(), "latchkey-otp-statements-"));
const file = join(dir, "auth.db");
const setup = createClient({ url: `file:${file}` });
await setup.execute("pragma journal_mode = wal");
await migrateDatabase(setup);
setup.close();
const codes = new Map<string, string>();
const auth = createAuth({
  secret: "otp-statements-secret-0123456789abcdef0123",
  database: drizzleStore({ url: `file:${file}` }),
  baseUrl: "http://127.0.0.1:3000",
  environment: "production",
  email: { sender: { send: async () => undefined } },
  rateLimit: { enabled: false },
  plugins: [emailOtp(), apiKeys(), jwt()],
});
auth.events.on("OtpGenerated", (event) => codes.set(event.identifier, event.plain));
const headers = { "content-type": "application/json", origin: "http://127.0.0.1:3000" };
const phases = { send: 0, signIn: 0 };
const run = Date.now().toString(36);

async function roundTrip(i: number): Promise<void> {
  const email = `otp-${run}-${i}@bench.test`;
  const c0 = process.cpuUsage();
  const sent = await auth.app.request("/email-otp/send-verification-otp", {
    method: "POST",
    headers,
    body: JSON.stringify({ email, purpose: "sign-in" }),
  });
  await sent.text();
  const c1 = process.cpuUsage(c0);
  if (sent.status !== 200) throw new Error(`send answered ${sent.status}`);
  const c2 = process.cpuUsage();
  const signedIn = await auth.app.request("/sign-in/email-otp", {
    method: "POST",
    headers,
    body: JSON.stringify({ email, otp: codes.get(email) }),
  });
  await signedIn.text();
  const c3 = process.cpuUsage(c2);
  if (signedIn.status !== 200) throw new Error(`sign-in answered ${signedIn.status}`);
  if (measuring) {
    phases.send += c1.user + c1.system;
    phases.signIn += c3.user + c3.system;
  }
}

/** Round trips `from` to `to` - 1, `CONCURRENCY` of them in flight at a time. */
async function roundTrips(from: number, to: number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) await roundTrip(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

await roundTrips(0, WARMUP);
const walBefore = WAL_FRAMES ? statSync(`${file}-wal`).size : 0;
measuring = true;
const before = process.cpuUsage();
await roundTrips(WARMUP, WARMUP + N);
const spent = process.cpuUsage(before);
measuring = false;

const perOp = (us: number) => `${(us / N).toFixed(1)} µs`;
console.log(`OTP round trip on a libSQL file, in process, ${N} round trips after ${WARMUP}, ${CONCURRENCY} at a time`);
console.log(
  `process CPU: ${perOp(spent.user + spent.system)} (user ${perOp(spent.user)}, system ${perOp(spent.system)})`,
);
if (CONCURRENCY === 1) console.log(`send: ${perOp(phases.send)}; sign-in: ${perOp(phases.signIn)}`);
if (WAL_FRAMES) {
  const frames = (statSync(`${file}-wal`).size - walBefore) / N / (4096 + 24);
  console.log(`WAL frames written per round trip: ${frames.toFixed(1)} (4 KiB pages)`);
}
let engine = 0;
console.log("per round trip  statement (CPU, engine call only)");
for (const [key, { n, cpuUs }] of [...statements].sort((a, b) => b[1].cpuUs - a[1].cpuUs)) {
  engine += cpuUs;
  console.log(`${(n / N).toFixed(2)}x ${perOp(cpuUs).padStart(10)}  ${key}`);
}
console.log(`engine total: ${perOp(engine)} (each timed call adds about 1 µs of its own)`);
await auth.close?.();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
