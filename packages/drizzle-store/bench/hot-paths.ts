// Times the store's hot calls on a real libSQL file and a real PostgreSQL, one call at a time (no concurrency):
// what one request pays in the store layer. Not a test; run by hand:
//   ../../bench/node_modules/.bin/tsx bench/hot-paths.ts [calls] [sqlite|postgres]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@latchkey/core";
import { startTestPostgres } from "../../../test/postgres-server.ts";
import { migrateDatabase, openDrizzleStore } from "../src/index.ts";

const calls = Number(process.argv[2] ?? 20_000);
const only = process.argv[3];
const writes = Math.max(1, Math.round(calls / 10));
const T0 = new Date(Date.UTC(2026, 0, 1));

async function seed(store: Store) {
  const user = {
    id: "u1",
    email: "ada@example.com",
    emailVerified: true,
    name: "Ada",
    image: null,
    username: null,
    metadata: {},
    createdAt: T0,
    updatedAt: T0,
  };
  await store.users.create(user, []);
  await store.sessions.create({
    id: "s1",
    userId: "u1",
    tokenHash: "th1",
    expiresAt: new Date(T0.getTime() + 864e5),
    createdAt: T0,
    updatedAt: T0,
    ip: null,
    userAgent: null,
    rememberMe: true,
  });
  await store.apiKeys.create({
    id: "k1",
    userId: "u1",
    name: "ci",
    prefix: "lk_",
    start: "lk_abc",
    keyHash: "kh1",
    enabled: true,
    metadata: {},
    permissions: {},
    remaining: 1_000_000_000,
    rateLimitMax: null,
    rateLimitWindowMs: null,
    requestCount: 0,
    windowStart: null,
    lastUsedAt: null,
    expiresAt: null,
    createdAt: T0,
    updatedAt: T0,
  });
  await store.verifications.issue({
    id: "v1",
    identifier: "otp:sign-in:ada@example.com",
    valueHash: "vh1",
    attemptCount: 0,
    expiresAt: new Date(T0.getTime() + 3e5),
    createdAt: T0,
    userId: null,
    payload: null,
  });
}

// Writes are a tenth as many calls: with synchronous=FULL each one is an fsync.
async function time(label: string, fn: (i: number) => Promise<unknown>, n = calls) {
  for (let i = 0; i < Math.min(1000, n); i++) await fn(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(
    `  ${label.padEnd(34)} ${Math.round(n / seconds)
      .toString()
      .padStart(7)} ops/s  (${n} calls)`,
  );
}

async function run(name: string, url: string) {
  await migrateDatabase(url);
  const store = await openDrizzleStore(url);
  await seed(store);
  console.log(name);
  const now = new Date(T0.getTime() + 1000);
  await time("sessions.findByTokenHash", async () => {
    if (!(await store.sessions.findByTokenHash("th1"))) throw new Error("session not found");
  });
  await time("sessions.touch", (i) => store.sessions.touch("s1", new Date(T0.getTime() + 864e5 + i), now), writes);
  await time("apiKeys.findByHash", async () => {
    if (!(await store.apiKeys.findByHash("kh1"))) throw new Error("key not found");
  });
  await time(
    "apiKeys.consumeUse",
    async () => {
      if (!(await store.apiKeys.consumeUse("k1", now)).ok) throw new Error("use refused");
    },
    writes,
  );
  await time("counters.hit", (i) => store.counters.hit(`ip:${i % 64}`, 60_000, now.getTime()), writes);
  await time("users.findByEmail", async () => {
    if (!(await store.users.findByEmail("ada@example.com"))) throw new Error("user not found");
  });
  await time("verifications.findByIdentifier", async () => {
    if (!(await store.verifications.findByIdentifier("otp:sign-in:ada@example.com"))) throw new Error("otp not found");
  });
  await store.close();
}

if (only !== "postgres") {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-hot-"));
  try {
    await run("libSQL file", `file:${join(dir, "hot.db")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (only !== "sqlite") {
  const server = await startTestPostgres();
  try {
    await run(`PostgreSQL (${server.source})`, server.url);
  } finally {
    await server.stop();
  }
}
