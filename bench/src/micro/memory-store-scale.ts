// How a memory-store port call's cost grows with the size of the store (issue 27: a call should cost in proportion to
// what it changes, not to the table). For each size, a fresh store is seeded with that many users, each with a
// credential account, a session, an API key and a one-time code; then each hot call runs `--calls` times against
// random users and its mean µs per call is printed. Flat rows across sizes are the goal; rows that grow with the
// size are a call that scans a whole table. In process, no HTTP; shared machines give noisy absolute figures.
// `node --import tsx src/micro/memory-store-scale.ts [--sizes=1000,4000,16000,32000] [--calls=2000]`
import type { FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { fixtures } from "@latchkey/store-conformance";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const sizes = (args.get("sizes") ?? "1000,4000,16000,32000").split(",").map(Number);
const calls = Number(args.get("calls") ?? 2000);

// The store-conformance suite's records, with ids a call can name.
const { user, account, session, verification, apiKey } = fixtures;
const code = (identifier: string, n: number) =>
  verification({ id: `v-${identifier}-${n}`, identifier, valueHash: `vh-${identifier}-${n}` });

async function seed(size: number): Promise<FullStore> {
  const store = memoryStore();
  for (let i = 0; i < size; i++) {
    const id = `u${i}`;
    await store.users.create(user({ id, email: `${id}@example.com` }), [account(id, { id: `a${i}` })]);
    await store.sessions.create(session(id, { id: `s${i}`, tokenHash: `th${i}` }));
    await store.apiKeys.create(apiKey(id, { id: `k${i}`, keyHash: `kh${i}` }));
    await store.verifications.issue(code(`otp:sign-in:${id}@example.com`, 0));
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
    s.accounts.upsertPassword(
      `u${i}`,
      account(`u${i}`, { id: `a-new-${n}`, passwordHash: `$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$${n}` }),
    ),
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
