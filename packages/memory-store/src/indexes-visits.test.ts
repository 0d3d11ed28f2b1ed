import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { describe, expect, it } from "vitest";
import { countingStore, expectIndexesMatchRows } from "../test/indexes-fixture.ts";

// Issue 27 (../test/indexes-fixture.ts): the hot calls use the secondary indexes, visiting only their own rows.

const { user, session, account, verification, apiKey, at } = fixtures;

describe("memory store indexes: each hot call visits only its own rows", () => {
  const USERS = 2000;
  const identifierOf = (i: number) => `otp:sign-in:user-${i}@example.com`;

  async function seeded() {
    const counting = countingStore();
    const { store } = counting;
    for (let i = 0; i < USERS; i++) {
      const u = user({ id: `user-${i}`, email: `user-${i}@example.com` });
      await store.users.create(u, [account(u.id, { id: `acct-${i}` })]);
      await store.sessions.create(session(u.id, { id: `sess-${i}`, tokenHash: `th-${i}` }));
      await store.apiKeys!.create(apiKey(u.id, { id: `key-${i}`, keyHash: `kh-${i}` }));
      await store.verifications.issue(
        verification({ id: `ver-${i}`, identifier: identifierOf(i), valueHash: `vh-${i}`, userId: u.id }),
      );
    }
    return counting;
  }

  // Each call, on user 1234 of 2,000 (10,000 rows in the tables it looks at), with how many rows it may visit: the
  // ones it reads or changes. A call that scanned a table would walk it (and visit thousands).
  const calls: [string, (store: FullStore) => Promise<unknown>, number][] = [
    ["verifications.issue", (s) => s.verifications.issue(verification({ identifier: identifierOf(1234) })), 1],
    ["verifications.findByIdentifier", (s) => s.verifications.findByIdentifier(identifierOf(1234)), 1],
    ["verifications.findByValueHash", (s) => s.verifications.findByValueHash("vh-1234"), 1],
    ["verifications.deleteByIdentifier", (s) => s.verifications.deleteByIdentifier(identifierOf(1234)), 1],
    ["verifications.consume", (s) => s.verifications.consume("ver-1234"), 1],
    ["verifications.recordFailedAttempt", (s) => s.verifications.recordFailedAttempt("ver-1234", 5), 1],
    ["accounts.listByUser", (s) => s.accounts.listByUser("user-1234"), 1],
    ["accounts.upsertPassword", (s) => s.accounts.upsertPassword("user-1234", account("user-1234")), 1],
    ["accounts.setPasswordIfAbsent", (s) => s.accounts.setPasswordIfAbsent("user-1234", account("user-1234")), 1],
    ["accounts.deleteAllExcept", (s) => s.accounts.deleteAllExcept("user-1234", "EMAIL_OTP"), 1],
    ["sessions.listByUser", (s) => s.sessions.listByUser("user-1234"), 1],
    ["sessions.deleteByUser", (s) => s.sessions.deleteByUser("user-1234"), 2],
    ["sessions.findByTokenHash", (s) => s.sessions.findByTokenHash("th-1234"), 3], // hash entry, session, user
    ["apiKeys.listByUser", (s) => s.apiKeys!.listByUser("user-1234", { limit: 10, cursor: null }), 1],
    [
      "apiKeys.create with maxPerUser",
      (s) => s.apiKeys!.create(apiKey("user-1234"), { maxPerUser: 5 }),
      1, // the one key the user has, counted against the limit
    ],
    ["apiKeys.deleteExpired of one user", (s) => s.apiKeys!.deleteExpired(at(0), "user-1234"), 1],
    // The user, and each of their session, account, key and code (a session and a key are read again to drop their
    // hash entries).
    ["users.delete", (s) => s.users.delete("user-1234"), 7],
  ];

  it.each(calls)("%s walks no table and visits at most its own rows", async (_name, call, maxRows) => {
    const { store, db, visits } = await seeded();
    visits.rows = 0;
    visits.walks = 0;
    await call(store);
    expect(visits.walks).toBe(0);
    expect(visits.rows).toBeLessThanOrEqual(maxRows);
    expectIndexesMatchRows(db);
  });

  it("the sweeps still walk the tables, and leave the indexes in step", async () => {
    const { store, db, visits } = await seeded();
    visits.walks = 0;
    // Every code and session expired by then; the keys never expire.
    const later = at(10 * 86_400_000);
    expect(await store.verifications.deleteExpired(later)).toBe(USERS);
    expect(await store.sessions.deleteExpired(later)).toBe(USERS);
    expect(visits.walks).toBeGreaterThan(0);
    expect(db.verifications.indexEntries("identifier").size).toBe(0);
    expect(db.sessions.indexEntries("user").size).toBe(0);
    expectIndexesMatchRows(db);
  });
});
