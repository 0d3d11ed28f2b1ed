import type { FullStore } from "@latchkey/core";
import { expect } from "vitest";
import { type MemoryDatabase, memoryDatabase } from "../src/database.ts";
import { memoryStoreOver } from "../src/store.ts";

// Issue 27: a memory-store call costs in proportion to what it reads or changes, not to the size of the store. The
// secondary indexes (table.ts) must (a) be what the hot calls use, visiting only their own rows, and (b) always say
// exactly what the rows say: after every kind of write, after a sweep, and after a transaction that rolled back.

// What the index tests (src/indexes-*.test.ts) share: the check of every index against the rows, and stores whose
// tables count the rows each call visits.

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
export function expectIndexesMatchRows(db: MemoryDatabase): void {
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
export function gate(): { passed: Promise<void>; open: () => void } {
  let open!: () => void;
  const passed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { passed, open };
}

/** Everything a transaction may write (rows and index entries), copied: what a rollback must give back. */
export function snapshot(db: MemoryDatabase) {
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
export function countingStore(): { store: FullStore; db: MemoryDatabase; visits: Visits } {
  const db = memoryDatabase();
  const visits: Visits = { rows: 0, walks: 0 };
  const watched = Object.fromEntries(
    Object.entries(db).map(([name, table]) => [name, table instanceof Map ? counted(table, visits) : table]),
  ) as unknown as MemoryDatabase;
  return { store: memoryStoreOver(watched), db, visits };
}
