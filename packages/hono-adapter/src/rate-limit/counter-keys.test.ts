import { afterAll, describe, expect, it } from "vitest";
import postgres from "postgres";
import { createClient } from "@libsql/client";
import { emailOtp, type CounterStore, type FullStore } from "@latchkey/core";
import { migrateDatabase } from "@latchkey/drizzle-store";
import { drizzleStore as postgresStore } from "@latchkey/drizzle-store/postgres";
import { drizzleStore as sqliteStore } from "@latchkey/drizzle-store/sqlite";
import { memoryStore } from "@latchkey/memory-store";
import { createTestPostgresDatabase, createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { createTestAuth } from "../../test/test-auth.ts";

// Counter keys are built from emails, usernames and client addresses (lockouts, rate limits, the per-recipient
// email budget and cooldown, sign-up notices). Core derives every one through a keyed hash under the auth secret,
// so the counters table (or Redis, or the memory map) never holds them in clear. Each store is filled through HTTP
// and its counter keys are then read back: libSQL and PostgreSQL from the table itself, memory from what its
// counters port was handed.
const VICTIM = "victim.person@example.com";
const IP = "198.51.100.23";
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.dispose();
});

/** Keys the memory store's counters port received (it has no table to read). */
function recordingMemoryStore(): { store: FullStore; keys: () => Promise<string[]> } {
  const inner = memoryStore();
  const seen = new Set<string>();
  const counters: CounterStore = {
    ...inner.counters,
    hit: (key, windowMs, now) => {
      seen.add(key);
      return inner.counters.hit(key, windowMs, now);
    },
    hitGated: (gate, next, now) => {
      seen.add(gate.key);
      seen.add(next.key);
      return inner.counters.hitGated!(gate, next, now);
    },
    rename: (from, to) => {
      seen.add(to);
      return inner.counters.rename(from, to);
    },
  };
  return { store: { ...inner, counters }, keys: async () => [...seen] };
}

async function fill(store: FullStore): Promise<void> {
  const t = createTestAuth({
    store,
    plugins: [emailOtp()],
    email: { perRecipient: { window: "15m", max: 5 }, resendCooldown: "60s", recipientCap: { window: "1h", max: 30 } },
    // Sign-up answers alike for new and taken addresses, and tells the owner of a taken one (a notice counter).
    emailVerification: { requireVerifiedForSignIn: true },
  });
  const signUp = (body: Record<string, string>) => t.request("POST", "/sign-up/email", { body, ip: IP });
  expect((await signUp({ email: VICTIM, password: "correct horse battery", username: "victimuser" })).status).toBe(200);
  // A second sign-up with the same address: the owner's notice counter (`sign-up-notice:<email>`).
  const again = await signUp({ email: VICTIM, password: "another long password" });
  expect([again.status, await again.json()]).toEqual([200, { success: true }]);
  // Sends to the address through every sending route (the budget and cooldown per network, the cap per address),
  // and to an unknown one; a minute apart, so no cooldown refuses one.
  for (const [path, body] of [
    ["/email-otp/send-verification-otp", { email: VICTIM, purpose: "sign-in" }],
    ["/email-otp/request-password-reset", { email: VICTIM }],
    ["/request-password-reset", { email: VICTIM }],
    ["/request-password-reset", { email: "nobody.here@example.org" }],
    ["/send-verification-email", { email: VICTIM }],
  ] as const) {
    t.clock.advance(61_000);
    expect((await t.request("POST", path, { body, ip: IP })).status).toBe(200);
  }
  // Failed sign-ins by email, username and for an unknown address (lockouts).
  for (const body of [
    { email: VICTIM, password: "wrong password!" },
    { username: "victimuser", password: "wrong password!" },
    { email: "nobody.here@example.org", password: "wrong password!" },
  ])
    expect((await t.request("POST", "/sign-in/email", { body, ip: IP })).status).toBeGreaterThanOrEqual(400);
  await t.settle();
}

function expectNoPersonalData(keys: string[]): void {
  // Not vacuous: the counters these flows write are all there, by kind.
  const kinds = new Set(keys.map((key) => key.slice(0, key.indexOf(":"))));
  for (const kind of ["sign-up-notice", "mail-budget", "mail-cooldown", "mail-cap", "fail", "rl"])
    expect(kinds).toContain(kind);
  for (const key of keys) {
    for (const part of [VICTIM, "victim.person", "victimuser", "nobody.here", "example.com", IP, "sign-in/email"])
      expect(key.toLowerCase(), key).not.toContain(part);
    // Kind in clear, then a 22-character keyed hash and nothing else.
    expect(key, key).toMatch(/^[a-z-]+:[A-Za-z0-9_-]{22}$/);
  }
}

describe("counter keys hold no email, username or address", () => {
  it("memory", async () => {
    const { store, keys } = recordingMemoryStore();
    await fill(store);
    expectNoPersonalData(await keys());
  });

  it("libSQL: the counters table", async () => {
    const db = await createTestSqliteFile();
    databases.push(db);
    await migrateDatabase(db.url);
    const store = sqliteStore({ url: db.url });
    await fill(store);
    await store.close();
    const client = createClient({ url: db.url });
    const rows = await client.execute("select key from counters");
    client.close();
    expectNoPersonalData(rows.rows.map((row) => String(row.key)));
  });

  it("PostgreSQL: the counters table", async () => {
    const db = await createTestPostgresDatabase();
    databases.push(db);
    await migrateDatabase(db.url);
    const store = postgresStore({ url: db.url, maxConnections: 2 });
    await fill(store);
    await store.close();
    const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
    const rows = await sql<{ key: string }[]>`select key from counters`;
    await sql.end({ timeout: 5 });
    expectNoPersonalData(rows.map((row) => row.key));
  });
});
