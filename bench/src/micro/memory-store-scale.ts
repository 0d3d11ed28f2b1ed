// How a memory-store port call's cost grows with the size of the store (issue 27: a call should cost in proportion to
// what it changes, not to the table). For each size, a fresh store is seeded with that many users, each with a
// credential account, a session, an API key and a one-time code; then each hot call runs `--calls` times against
// random users and its mean µs per call is printed. Flat rows across sizes are the goal; rows that grow with the
// size are a call that scans a whole table. In process, no HTTP; shared machines give noisy absolute figures.
// `node --import tsx src/micro/memory-store-scale.ts [--sizes=1000,4000,16000,32000] [--calls=2000]`
import type { ApiKeyRecord, FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const sizes = (args.get("sizes") ?? "1000,4000,16000,32000").split(",").map(Number);
const calls = Number(args.get("calls") ?? 2000);

const T0 = new Date(Date.UTC(2026, 0, 1));
const LATER = new Date(T0.getTime() + 86_400_000);

function keyRecord(i: number): ApiKeyRecord {
  return {
    id: `k${i}`,
    userId: `u${i}`,
    name: null,
    prefix: "lk_",
    start: "lk_abcde",
    keyHash: `kh${i}`,
    enabled: true,
    locked: false,
    metadata: {},
    serverMetadata: {},
    permissions: {},
    remaining: null,
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
  };
}

const code = (identifier: string, n: number) => ({
  id: `v-${identifier}-${n}`,
  identifier,
  valueHash: `vh-${identifier}-${n}`,
  attemptCount: 0,
  expiresAt: LATER,
  createdAt: T0,
  userId: null,
  payload: null,
});

async function seed(size: number): Promise<FullStore> {
  const store = memoryStore();
  for (let i = 0; i < size; i++) {
    const user = {
      id: `u${i}`,
      email: `u${i}@example.com`,
      emailVerified: true,
      name: null,
      image: null,
      username: null,
      metadata: {},
      appMetadata: {},
      createdAt: T0,
      updatedAt: T0,
    };
    const credential = {
      id: `a${i}`,
      userId: user.id,
      providerId: "credential",
      passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
      createdAt: T0,
      updatedAt: T0,
    };
    await store.users.create(user, [credential]);
    await store.sessions.create({
      id: `s${i}`,
      userId: user.id,
      tokenHash: `th${i}`,
      expiresAt: LATER,
      createdAt: T0,
      updatedAt: T0,
      ip: null,
      userAgent: null,
      rememberMe: true,
    });
    await store.apiKeys.create(keyRecord(i));
    await store.verifications.issue(code(`otp:sign-in:u${i}@example.com`, 0));
  }
  return store;
}

type Call = (store: FullStore, i: number, n: number) => Promise<unknown>;
const CALLS: Record<string, Call> = {
  "verifications.issue": (s, i, n) => s.verifications.issue(code(`otp:sign-in:u${i}@example.com`, n + 1)),
  "verifications.findByIdentifier": (s, i) => s.verifications.findByIdentifier(`otp:sign-in:u${i}@example.com`),
  "verifications.findByValueHash": (s, i) => s.verifications.findByValueHash(`vh-otp:sign-in:u${i}@example.com-0`),
  "accounts.listByUser": (s, i) => s.accounts.listByUser(`u${i}`),
  "accounts.upsertPassword": (s, i, n) =>
    s.accounts.upsertPassword(`u${i}`, {
      id: `a-new-${n}`,
      userId: `u${i}`,
      providerId: "credential",
      passwordHash: `$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$${n}`,
      createdAt: T0,
      updatedAt: new Date(T0.getTime() + n),
    }),
  "sessions.listByUser": (s, i) => s.sessions.listByUser(`u${i}`),
  "apiKeys.listByUser": (s, i) => s.apiKeys.listByUser(`u${i}`, { limit: 10, cursor: null }),
};

const rows: string[] = [
  `| call | ${sizes.map((n) => `${n} users`).join(" | ")} |`,
  `|---|${sizes.map(() => "---:").join("|")}|`,
];
const results = new Map<string, number[]>();
for (const size of sizes) {
  const store = await seed(size);
  for (const [name, call] of Object.entries(CALLS)) {
    // Users picked by a fixed stride, so every size visits the same spread of rows.
    for (let n = 0; n < 200; n++) await call(store, (n * 7919) % size, n); // warm-up
    const started = process.hrtime.bigint();
    for (let n = 0; n < calls; n++) await call(store, (n * 7919) % size, 200 + n);
    const micros = Number(process.hrtime.bigint() - started) / 1000 / calls;
    results.set(name, [...(results.get(name) ?? []), micros]);
  }
}
for (const [name, micros] of results) rows.push(`| ${name} | ${micros.map((m) => m.toFixed(1)).join(" | ")} |`);
console.log(`µs per call (mean of ${calls})\n${rows.join("\n")}`);
