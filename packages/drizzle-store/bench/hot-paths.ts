// Times the store's hot calls on a real libSQL file and a real PostgreSQL, one call at a time (no concurrency):
// what one request pays in the store layer. Not a test; run by hand:
//   ../../bench/node_modules/.bin/tsx bench/hot-paths.ts [calls] [sqlite|postgres]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiKeys, argon2idHasher, createAuthCore, webCryptoRandom, type Store } from "@latchkey/core";
import { createTestClock } from "@latchkey/core/internal";
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
    appMetadata: {},
    createdAt: T0,
    updatedAt: T0,
    banned: false,
    banReason: null,
    banExpires: null,
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
    impersonatedBy: null,
  });
  await store.apiKeys.create({
    id: "k1",
    userId: "u1",
    name: "ci",
    prefix: "lk_",
    start: "lk_abc",
    keyHash: "kh1",
    enabled: true,
    locked: false,
    metadata: {},
    serverMetadata: {},
    permissions: {},
    remaining: 1_000_000_000,
    refillAmount: null,
    refillIntervalMs: null,
    lastRefillAt: null,
    previousKeyHash: null,
    previousKeyExpiresAt: null,
    rerolledAt: null,
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
  await time("apiKeys.findByHashWithOwner", async () => {
    if (!(await store.apiKeys.findByHashWithOwner("kh1"))) throw new Error("key not found");
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
  await verifyWithAndWithoutUsage(store, now.getTime());
  await store.close();
}

/**
 * The whole verify (`auth.api.verifyApiKey`) of an unlimited key, with `usage: false` next to `usage: true`,
 * and the store calls each costs: with `lastUsedResolution` the common verify is one read (the key with its owner); usage adds one counter
 * write. The clock advances 10 ms a call, so `lastUsedAt` is written once per simulated minute.
 */
async function verifyWithAndWithoutUsage(store: Store, start: number) {
  for (const usage of [false, true]) {
    const counts = { reads: 0, writes: 0 };
    const keys = store.apiKeys!;
    const counting = {
      ...store,
      apiKeys: {
        ...keys,
        findByHashWithOwner: (hash: string) => {
          counts.reads++;
          return keys.findByHashWithOwner(hash);
        },
        touchLastUsed: (id: string, now: Date, resolutionMs: number) => {
          counts.writes++;
          return keys.touchLastUsed(id, now, resolutionMs);
        },
      },
      counters: {
        ...store.counters,
        hit: (key: string, windowMs: number, now: number) => {
          counts.writes++;
          return store.counters.hit(key, windowMs, now);
        },
      },
    } as Store;
    const clock = createTestClock(start);
    const core = createAuthCore({
      secret: "s".repeat(32),
      database: counting,
      baseUrl: "https://bench.example",
      clock,
      passwordHasher: argon2idHasher({
        random: webCryptoRandom,
        params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
      }),
      plugins: [apiKeys({ usage, maxPerUser: null })],
    });
    const user = await core.api.createUser({ email: `bench-${usage}@example.com`, password: "long enough pw" });
    const { key } = await core.api.createApiKey({ userId: user.id });
    const n = writes;
    counts.reads = 0;
    counts.writes = 0;
    await time(
      `verifyApiKey, unlimited, usage: ${usage}`,
      async () => {
        clock.advance(10);
        if (!(await core.api.verifyApiKey({ key })).valid) throw new Error("key refused");
      },
      n,
    );
    // The warm-up ran min(1000, n) calls before the timed n.
    const total = n + Math.min(1000, n);
    console.log(
      `  ${"".padEnd(34)} per verify: ${(counts.reads / total).toFixed(3)} reads, ${(counts.writes / total).toFixed(3)} writes`,
    );
  }
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
