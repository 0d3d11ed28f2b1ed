import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { describe, expect, it } from "vitest";
import { type MemoryDatabase, memoryDatabase } from "./database.ts";
import { memoryStoreOver } from "./store.ts";

// Issue 27: a memory-store call costs in proportion to what it reads or changes, not to the size of the store. The
// secondary indexes (table.ts) must (a) be what the hot calls use, visiting only their own rows, and (b) always say
// exactly what the rows say: after every kind of write, after a sweep, and after a transaction that rolled back.

const { user, session, account, verification, apiKey, at } = fixtures;

/** What each index must hold, stated from the rows (independently of database.ts): key -> ids filed under it. */
function indexOf<V>(table: Map<string, V>, keysOf: (row: V) => (string | null)[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [id, row] of table)
    for (const key of keysOf(row)) {
      if (key === null) continue;
      const ids = out.get(key) ?? new Set<string>();
      out.set(key, ids.add(id));
    }
  return out;
}

/** A unique index (value -> id) as a key -> {id} map, to compare with `indexOf`. */
const asSets = (unique: Map<string, string>) => new Map([...unique].map(([key, id]) => [key, new Set([id])]));

/** Every index of `db` against the rows: no stale entry, no missing one, no empty key left behind. */
function expectIndexesMatchRows(db: MemoryDatabase): void {
  expect(db.sessions.indexEntries("user")).toEqual(indexOf(db.sessions, (s) => [s.userId]));
  expect(db.sessions.indexEntries("impersonator")).toEqual(indexOf(db.sessions, (s) => [s.impersonatedBy ?? null]));
  expect(db.accounts.indexEntries("user")).toEqual(indexOf(db.accounts, (a) => [a.userId]));
  expect(db.apiKeys.indexEntries("user")).toEqual(indexOf(db.apiKeys, (k) => [k.userId]));
  expect(db.verifications.indexEntries("identifier")).toEqual(indexOf(db.verifications, (v) => [v.identifier]));
  expect(db.verifications.indexEntries("valueHash")).toEqual(indexOf(db.verifications, (v) => [v.valueHash]));
  expect(db.verifications.indexEntries("user")).toEqual(indexOf(db.verifications, (v) => [v.userId]));
  // The unique indexes kept by the ports themselves, checked the same way.
  expect(asSets(db.sessionsByHash)).toEqual(indexOf(db.sessions, (s) => [s.tokenHash]));
  expect(asSets(db.apiKeysByHash)).toEqual(indexOf(db.apiKeys, (k) => [k.keyHash, k.previousKeyHash]));
  expect(asSets(db.emails)).toEqual(indexOf(db.users, (u) => [u.email]));
  expect(asSets(db.usernames)).toEqual(indexOf(db.users, (u) => [u.username]));
}

/** A promise and the function that resolves it: one request waits at a point another one lets it pass. */
function gate(): { passed: Promise<void>; open: () => void } {
  let open!: () => void;
  const passed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { passed, open };
}

/** Everything a transaction may write (rows and index entries), copied: what a rollback must give back. */
function snapshot(db: MemoryDatabase) {
  return {
    users: new Map(db.users),
    emails: new Map(db.emails),
    usernames: new Map(db.usernames),
    sessions: new Map(db.sessions),
    sessionsByHash: new Map(db.sessionsByHash),
    accounts: new Map(db.accounts),
    verifications: new Map(db.verifications),
    apiKeys: new Map(db.apiKeys),
    apiKeysByHash: new Map(db.apiKeysByHash),
    jwks: new Map(db.jwks),
    sessionsByUser: db.sessions.indexEntries("user"),
    accountsByUser: db.accounts.indexEntries("user"),
    apiKeysByUser: db.apiKeys.indexEntries("user"),
    verificationsByIdentifier: db.verifications.indexEntries("identifier"),
    verificationsByValueHash: db.verifications.indexEntries("valueHash"),
    verificationsByUser: db.verifications.indexEntries("user"),
  };
}

/** Rows a call visited (read by id or through an index) and whole-table walks it made, over every map. */
interface Visits {
  rows: number;
  walks: number;
}
const WALKS = new Set<PropertyKey>(["values", "entries", "keys", "forEach", Symbol.iterator]);

/** `map` seen through a proxy that counts, into `visits`, every row handed out and every walk over the map. */
function counted<M extends Map<string, unknown>>(map: M, visits: Visits): M {
  return new Proxy(map, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => unknown;
      if (WALKS.has(property))
        return (...args: unknown[]) => {
          visits.walks++;
          return method.apply(target, args);
        };
      if (property === "get" || property === "firstBy")
        return (...args: unknown[]) => {
          const row = method.apply(target, args);
          if (row !== undefined) visits.rows++;
          return row;
        };
      if (property === "rowsBy")
        return (...args: unknown[]) => {
          const rows = method.apply(target, args) as unknown[];
          visits.rows += rows.length;
          return rows;
        };
      return method.bind(target);
    },
  });
}

/** A store over a database whose tables count their visits. */
function countingStore(): { store: FullStore; db: MemoryDatabase; visits: Visits } {
  const db = memoryDatabase();
  const visits: Visits = { rows: 0, walks: 0 };
  const watched = Object.fromEntries(
    Object.entries(db).map(([name, table]) => [name, table instanceof Map ? counted(table, visits) : table]),
  ) as unknown as MemoryDatabase;
  return { store: memoryStoreOver(watched), db, visits };
}

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

describe("memory store indexes: always what the rows say", () => {
  it("after every kind of write, each index matches the rows", async () => {
    const db = memoryDatabase();
    const store = memoryStoreOver(db);
    const keys = store.apiKeys!;
    const steps: [string, () => Promise<unknown>][] = [];
    const step = (name: string, write: () => Promise<unknown>) => steps.push([name, write]);

    const ada = user({ id: "ada", username: "ada" });
    const bob = user({ id: "bob" });
    step("users.create with accounts", () =>
      store.users.create(ada, [
        account("ada", { id: "ada-pw" }),
        account("ada", { id: "ada-otp", providerId: "EMAIL_OTP", passwordHash: null }),
      ]),
    );
    step("users.create, no accounts", () => store.users.create(bob, []));
    step("users.update email and username", () =>
      store.users.update("ada", { email: "ada2@example.com", username: "ada2" }),
    );
    step("accounts.create", () =>
      store.accounts.create(account("bob", { id: "bob-otp", providerId: "EMAIL_OTP", passwordHash: null })),
    );
    step("accounts.setPasswordIfAbsent inserts", () =>
      store.accounts.setPasswordIfAbsent("bob", account("bob", { id: "bob-pw" })),
    );
    step("accounts.upsertPassword updates", () =>
      store.accounts.upsertPassword("bob", account("bob", { passwordHash: "$new" })),
    );
    step("accounts.deleteAllExcept", () => store.accounts.deleteAllExcept("ada", "credential"));
    for (const [id, owner] of [
      ["s1", "ada"],
      ["s2", "ada"],
      ["s3", "bob"],
      ["s4", "bob"],
    ] as const)
      step(`sessions.create ${id}`, () =>
        store.sessions.create(
          session(owner, { id, tokenHash: `th-${id}`, expiresAt: at(id === "s4" ? 1000 : 86_400_000) }),
        ),
      );
    step("sessions.touch", () => store.sessions.touch("s1", at(172_800_000), at(1000)));
    step("sessions.delete", () => store.sessions.delete("s2"));
    step("sessions.deleteByUser except one", () => store.sessions.deleteByUser("ada", "s1"));
    step("sessions.deleteExpired", () => store.sessions.deleteExpired(at(2000)));

    step("verifications.issue", () =>
      store.verifications.issue(verification({ id: "v1", identifier: "otp:ada", valueHash: "h1", userId: "ada" })),
    );
    step("verifications.issue rotates", () =>
      store.verifications.issue(verification({ id: "v2", identifier: "otp:ada", valueHash: "h2", userId: "ada" })),
    );
    step("verifications.issue, no user", () =>
      store.verifications.issue(verification({ id: "v3", identifier: "link:x", valueHash: "h3" })),
    );
    step("verifications.issue, same value hash", () =>
      store.verifications.issue(verification({ id: "v4", identifier: "link:y", valueHash: "h3", userId: "bob" })),
    );
    step("verifications.recordFailedAttempt", () => store.verifications.recordFailedAttempt("v2", 3));
    step("verifications.recordFailedAttempt destroys", () => store.verifications.recordFailedAttempt("v4", 1));
    step("verifications.consume", () => store.verifications.consume("v3"));
    step("verifications.issue again", () =>
      store.verifications.issue(
        verification({ id: "v5", identifier: "otp:bob", valueHash: "h5", userId: "bob", expiresAt: at(1000) }),
      ),
    );
    step("verifications.deleteByIdentifier", () => store.verifications.deleteByIdentifier("otp:ada"));
    step("verifications.deleteExpired", () => store.verifications.deleteExpired(at(2000)));
    step("verifications.issue for the cascade", () =>
      store.verifications.issue(verification({ id: "v6", identifier: "otp:bob", valueHash: "h6", userId: "bob" })),
    );

    step("apiKeys.create", () => keys.create(apiKey("ada", { id: "k1", keyHash: "kh1" })));
    step("apiKeys.create, limited", () =>
      keys.create(apiKey("ada", { id: "k2", keyHash: "kh2", expiresAt: at(1000) }), { maxPerUser: 2 }),
    );
    step("apiKeys.create refused at the limit", () =>
      keys.create(apiKey("ada", { id: "k3", keyHash: "kh3" }), { maxPerUser: 2 }),
    );
    step("apiKeys.create for bob", () =>
      keys.create(apiKey("bob", { id: "k4", keyHash: "kh4", remaining: 3, expiresAt: at(1000) })),
    );
    step("apiKeys.update", () => keys.update("k1", "ada", { name: "renamed" }));
    step("apiKeys.reroll with grace", () =>
      keys.reroll("k1", "ada", { keyHash: "kh1b", start: "lk_x", graceUntil: at(1000), at: at(0) }),
    );
    step("apiKeys.reroll without grace", () =>
      keys.reroll("k4", null, { keyHash: "kh4b", start: "lk_y", graceUntil: null, at: at(0) }),
    );
    step("apiKeys.touchLastUsed", () => keys.touchLastUsed("k1", at(10), 1));
    step("apiKeys.consumeUse", () => keys.consumeUse("k4", at(10)));
    step("apiKeys.deleteExpiredRerolls", () => keys.deleteExpiredRerolls(at(2000)));
    step("apiKeys.deleteExpired of one user", () => keys.deleteExpired(at(2000), "ada"));
    step("apiKeys.create again", () => keys.create(apiKey("ada", { id: "k5", keyHash: "kh5" })));
    step("apiKeys.delete", () => keys.delete("k5", "ada"));
    step("apiKeys.deleteExpired of every user", () => keys.deleteExpired(at(2000), null));
    step("apiKeys.create for the cascade", () => keys.create(apiKey("bob", { id: "k6", keyHash: "kh6" })));

    step("users.delete takes the user's rows", () => store.users.delete("bob"));

    for (const [name, write] of steps) {
      await write();
      try {
        expectIndexesMatchRows(db);
      } catch (error) {
        throw new Error(`indexes out of step after ${name}`, { cause: error });
      }
    }
    // The script did what it says: what is left is ada's credential account, session s1 and key k1.
    expect([...db.accounts.keys()]).toEqual(["ada-pw"]);
    expect([...db.sessions.keys()]).toEqual(["s1"]);
    expect([...db.apiKeys.keys()]).toEqual(["k1"]);
    expect(db.verifications.size).toBe(0);
    expect(db.accounts.indexEntries("user")).toEqual(new Map([["ada", new Set(["ada-pw"])]]));
  });
});

describe("memory store indexes: a rolled-back transaction", () => {
  async function withRows() {
    const db = memoryDatabase();
    const store = memoryStoreOver(db);
    for (const id of ["ada", "bob"]) {
      await store.users.create(user({ id }), [account(id, { id: `${id}-pw` })]);
      await store.sessions.create(session(id, { id: `${id}-s`, tokenHash: `th-${id}` }));
      await store.apiKeys!.create(apiKey(id, { id: `${id}-k`, keyHash: `kh-${id}` }));
      await store.verifications.issue(
        verification({ id: `${id}-v`, identifier: `otp:${id}`, valueHash: `vh-${id}`, userId: id }),
      );
    }
    return { db, store };
  }

  it("leaves every index exactly as before when the body fails half-way", async () => {
    const { db, store } = await withRows();
    const before = snapshot(db);
    const failure = new Error("half-way");
    await expect(
      store.transaction(async (tx) => {
        const cy = user({ id: "cy" });
        await tx.users.create(cy, [account("cy", { id: "cy-pw" })]);
        await tx.sessions.create(session("cy", { id: "cy-s" }));
        await tx.sessions.create(session("ada", { id: "ada-s2" }));
        await tx.sessions.deleteByUser("bob");
        await tx.accounts.upsertPassword("ada", account("ada", { passwordHash: "$changed" }));
        await tx.accounts.deleteAllExcept("bob", "EMAIL_OTP");
        await tx.verifications.issue(
          verification({ id: "ada-v2", identifier: "otp:ada", valueHash: "vh-ada-2", userId: "ada" }),
        );
        await tx.verifications.consume("bob-v");
        await tx.apiKeys!.reroll("ada-k", "ada", {
          keyHash: "kh-ada-2",
          start: "lk_z",
          graceUntil: at(1000),
          at: at(0),
        });
        await tx.apiKeys!.create(apiKey("cy", { id: "cy-k" }));
        await tx.users.delete("bob");
        expectIndexesMatchRows(db); // in step inside the transaction too
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(snapshot(db)).toEqual(before);
    expectIndexesMatchRows(db);
  });

  it("keeps the indexes in step when writes outside the transaction land on the same user meanwhile", async () => {
    const { db, store } = await withRows();
    const outside = gate();
    const txWrote = gate();
    const rolledBack = store.transaction(async (tx) => {
      await tx.sessions.create(session("ada", { id: "tx-s" }));
      await tx.verifications.issue(
        verification({ id: "tx-v", identifier: "otp:bob", valueHash: "vh-tx", userId: "bob" }),
      );
      txWrote.open();
      await outside.passed; // another request writes to ada and bob now
      throw new Error("rolled back");
    });
    await txWrote.passed; // the transaction's writes come first, the other request's land while it is open
    await store.sessions.create(session("ada", { id: "out-s" }));
    await store.accounts.create(account("bob", { id: "out-otp", providerId: "EMAIL_OTP", passwordHash: null }));
    await store.verifications.issue(
      verification({ id: "out-v", identifier: "otp:ada", valueHash: "vh-out", userId: "ada" }),
    );
    outside.open();
    await expect(rolledBack).rejects.toThrow("rolled back");

    // The transaction's rows are gone, the other request's stand, and every index says so.
    expectIndexesMatchRows(db);
    expect(db.sessions.indexEntries("user").get("ada")).toEqual(new Set(["ada-s", "out-s"]));
    expect(db.verifications.indexEntries("identifier").get("otp:ada")).toEqual(new Set(["out-v"]));
    expect(db.verifications.indexEntries("identifier").get("otp:bob")).toEqual(new Set(["bob-v"]));
    expect(await store.verifications.findByValueHash("vh-tx")).toBeNull();
    expect((await store.sessions.listByUser("ada")).map((s) => s.id).sort()).toEqual(["ada-s", "out-s"]);
  });
});

describe("a rolled-back transaction and a newer code for the same identifier", () => {
  // Ada with one live code, `old-v` for `otp:ada`.
  async function withAdaCode() {
    const db = memoryDatabase();
    const store = memoryStoreOver(db);
    await store.users.create(user({ id: "ada", email: "ada@example.com" }), []);
    await store.verifications.issue(
      verification({ id: "old-v", identifier: "otp:ada", valueHash: "vh-old", userId: "ada" }),
    );
    return { db, store };
  }

  it("bug: the code the transaction replaced does not come back beside the code another request issued meanwhile", async () => {
    const { db, store } = await withAdaCode();
    const outside = gate();
    const txRotated = gate();
    const rolledBack = store.transaction(async (tx) => {
      // The transaction rotates the code (old-v out, tx-v in), then fails after another request sent a new one.
      await tx.verifications.issue(
        verification({ id: "tx-v", identifier: "otp:ada", valueHash: "vh-tx", userId: "ada" }),
      );
      txRotated.open();
      await outside.passed;
      throw new Error("rolled back");
    });
    await txRotated.passed;
    expect([...db.verifications.keys()]).toEqual(["tx-v"]);
    await store.verifications.issue(
      verification({ id: "out-v", identifier: "otp:ada", valueHash: "vh-out", userId: "ada" }),
    );
    outside.open();
    await expect(rolledBack).rejects.toThrow("rolled back");

    // One code per identifier, as in the SQL stores: the newest stands; neither the replaced nor the rolled-back one
    // can be found by its value.
    expect([...db.verifications.keys()]).toEqual(["out-v"]);
    expect((await store.verifications.findByIdentifier("otp:ada"))?.id).toBe("out-v");
    expect(await store.verifications.findByValueHash("vh-old")).toBeNull();
    expect(await store.verifications.findByValueHash("vh-tx")).toBeNull();
    expectIndexesMatchRows(db);
  });

  it("a rolled-back transaction still puts back the code it removed when nobody issued another", async () => {
    const { db, store } = await withAdaCode();
    await expect(
      store.transaction(async (tx) => {
        await tx.verifications.issue(
          verification({ id: "tx-v", identifier: "otp:ada", valueHash: "vh-tx", userId: "ada" }),
        );
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect([...db.verifications.keys()]).toEqual(["old-v"]);
    expect((await store.verifications.findByValueHash("vh-old"))?.id).toBe("old-v");
    expectIndexesMatchRows(db);
  });
});
