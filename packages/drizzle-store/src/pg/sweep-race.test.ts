// A sweep's batched delete picks its ids from a snapshot; a row that became live again while the delete waited on
// its lock must stay. Deterministic: a second connection holds the live-again write in an open transaction until
// PostgreSQL shows the sweep waiting on that row's lock, then commits.
import { fixtures } from "@latchkey/store-conformance";
import { createTestPostgresDatabase, type TestDatabase } from "@latchkey/test-support";
import type { Sql } from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drizzleStore, migrateDatabase } from "../postgres.ts";
import type { FullStore } from "@latchkey/core";
import { openPostgres } from "./postgres-js.ts";

let database: TestDatabase;
let store: FullStore;
let other: Sql;
beforeAll(async () => {
  database = await createTestPostgresDatabase();
  await migrateDatabase(database.url);
  store = drizzleStore({ dialect: "postgres", url: database.url }) as FullStore;
  other = openPostgres(database.url);
});
afterAll(async () => {
  await other?.end({ timeout: 5 });
  await store?.close();
  await database?.dispose();
});

/** Runs `write` in a transaction on the other connection, commits once `sweep` waits on a lock; sweep's answer. */
async function sweepWhileHeld(write: (tx: Sql) => Promise<unknown>, sweep: () => Promise<number>): Promise<number> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding!: () => void;
  const held = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const transaction = other.begin(async (tx) => {
    await write(tx as unknown as Sql);
    holding();
    await released;
  });
  await held;
  const swept = sweep();
  // Wait (no clock involved) until the sweep's statement is blocked on the row lock the transaction holds.
  for (;;) {
    const [row] = await other`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query ilike 'delete from%'`;
    if ((row as { n: number }).n > 0) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  release();
  await transaction;
  return swept;
}

describe("PostgreSQL sweeps re-check their condition in the delete", () => {
  it("a counter whose window restarted while the sweep waited is kept", async () => {
    const now = fixtures.T0.getTime();
    await store.counters.hit("sweep-race:restarted", 1000, now);
    await store.counters.hit("sweep-race:ended", 1000, now);
    const later = now + 5000;
    const deleted = await sweepWhileHeld(
      (tx) => tx`update counters set count = 1, reset_at = ${later + 60_000} where key = 'sweep-race:restarted'`,
      () => store.counters.deleteExpired(later, 10),
    );
    expect(deleted).toBe(1);
    expect(await store.counters.peek("sweep-race:restarted", later)).toEqual({ count: 1, resetAt: later + 60_000 });
    expect(await store.counters.peek("sweep-race:ended", now)).toBeNull();
  });

  it("a session that slid while the sweep waited is kept", async () => {
    const user = fixtures.user();
    await store.users.create(user, []);
    const slid = fixtures.session(user.id, { expiresAt: fixtures.at(1000) });
    const gone = fixtures.session(user.id, { expiresAt: fixtures.at(1000) });
    await store.sessions.create(slid);
    await store.sessions.create(gone);
    const extended = fixtures.at(86_400_000);
    const deleted = await sweepWhileHeld(
      (tx) => tx`update sessions set expires_at = ${extended} where id = ${slid.id}`,
      () => store.sessions.deleteExpired(fixtures.at(5000), 10),
    );
    expect(deleted).toBe(1);
    expect((await store.sessions.findByTokenHash(slid.tokenHash))?.session.expiresAt).toEqual(extended);
    expect(await store.sessions.findByTokenHash(gone.tokenHash)).toBeNull();
  });
});
