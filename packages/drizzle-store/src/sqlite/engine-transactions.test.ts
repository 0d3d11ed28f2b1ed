import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import type { Client } from "@libsql/client";
import Database from "libsql";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { migrateDatabase } from "../sqlite.ts";
import { openSqlite, openSqliteForStore } from "./connection.ts";
import { statementCache, type EngineConnection } from "./statement-cache.ts";
import { sqliteStore } from "./store.ts";

const { account, session, user } = fixtures;

describe("a file store's transactions run on the engine's writer connection", () => {
  let database: TestDatabase;
  let client: Client;
  let store: FullStore;
  beforeAll(async () => {
    database = await createTestSqliteFile();
    await migrateDatabase(database.url);
  });
  afterEach(async () => {
    await store?.close();
  });
  afterAll(async () => {
    await database?.dispose();
  });

  function open(): { execute: ReturnType<typeof vi.fn>; transaction: ReturnType<typeof vi.fn> } {
    client = openSqliteForStore(database.url);
    const execute = vi.fn();
    const transaction = vi.fn();
    const realExecute = client.execute.bind(client);
    const realTransaction = client.transaction.bind(client);
    client.execute = ((...args: Parameters<Client["execute"]>) => {
      execute(...args);
      return realExecute(...args);
    }) as Client["execute"];
    client.transaction = ((...args: Parameters<Client["transaction"]>) => {
      transaction(...args);
      return realTransaction(...args);
    }) as Client["transaction"];
    store = sqliteStore(client, true, database.url);
    return { execute, transaction };
  }

  it("commits a user, its account and a session without a client statement; every connection sees them", async () => {
    const spies = open();
    const u = user();
    const s = session(u.id);
    // The first transaction opens the writer connection (the client reads the file's path for it once).
    await store.transaction(async () => undefined);
    spies.execute.mockClear();
    await store.transaction(async (tx) => {
      const created = await tx.users.create(u, [account(u.id)]);
      expect(created.ok).toBe(true);
      expect(await tx.sessions.create(s)).toBe(true);
      expect(await tx.users.findByEmail(u.email)).toEqual(u);
    });
    expect(spies.transaction).not.toHaveBeenCalled();
    expect(spies.execute).not.toHaveBeenCalled();
    expect(await store.users.findByEmail(u.email)).toEqual(u);
    expect((await store.sessions.findByTokenHash(s.tokenHash))?.session).toEqual(s);
    const other = openSqlite(database.url);
    const rows = await other.execute({ sql: "select count(*) as n from accounts where user_id = ?", args: [u.id] });
    other.close();
    expect(Number(rows.rows[0]?.n)).toBe(1);
  });

  it("a body that throws leaves nothing; the next transaction starts clean and commits", async () => {
    open();
    const [gone, kept] = [user(), user()];
    await expect(
      store.transaction(async (tx) => {
        await tx.users.create(gone, [account(gone.id)]);
        await tx.sessions.create(session(gone.id));
        throw new Error("half-way");
      }),
    ).rejects.toThrow("half-way");
    expect(await store.users.findByEmail(gone.email)).toBeNull();
    await store.transaction(async (tx) => {
      await tx.users.create(kept, []);
    });
    expect(await store.users.findByEmail(kept.email)).toEqual(kept);
    expect(await store.users.findByEmail(gone.email)).toBeNull();
  });

  it("batches, deletes and conflicts inside a transaction answer as on the client (counts, rows, conflicts)", async () => {
    open();
    const u = user();
    const twin = user({ email: u.email });
    const [a, b] = [session(u.id), session(u.id)];
    const answers = await store.transaction(async (tx) => {
      await tx.users.create(u, []);
      const conflict = await tx.users.create(twin, []);
      await tx.sessions.create(a);
      await tx.sessions.create(b);
      const deleted = await tx.sessions.deleteByUser(u.id, a.id);
      const gone = await tx.users.delete(u.id);
      return { conflict, deleted, gone };
    });
    expect(answers).toEqual({ conflict: { ok: false, conflict: "email" }, deleted: 1, gone: true });
    expect(await store.users.findByEmail(u.email)).toBeNull();
    expect(await store.sessions.findByTokenHash(a.tokenHash)).toBeNull();
  });

  it("a write from another connection waits for the engine transaction's commit (the write lock is held to the end)", async () => {
    open();
    const u = user();
    let sawLock = false;
    await store.transaction(async (tx) => {
      await tx.users.create(u, []);
      const outsider = new Database(database.url.replace(/^file:/, ""), { timeout: 0 });
      try {
        outsider.prepare("update users set name = 'outside' where id = ?").run(u.id);
      } catch (error) {
        sawLock = /SQLITE_BUSY|locked/i.test(String((error as { code?: string }).code ?? error));
      } finally {
        outsider.close();
      }
    });
    expect(sawLock).toBe(true);
    expect((await store.users.findByEmail(u.email))?.name).toBe(u.name);
  });
});

describe("statementCache", () => {
  function counting(): EngineConnection & { compiled: string[]; close(): void } {
    const db = new Database(":memory:");
    db.exec("create table t (a integer, b text)");
    db.exec("insert into t values (1, 'x')");
    const compiled: string[] = [];
    return {
      compiled,
      prepare(sql) {
        compiled.push(sql);
        return db.prepare(sql) as never;
      },
      close: () => db.close(),
    };
  }

  it("compiles each SQL text once and keeps the most recently used `max`", () => {
    const connection = counting();
    const cache = statementCache(connection, 2);
    for (let i = 0; i < 3; i++) expect(cache.prepare("select a from t").get()).toMatchObject({ a: 1 });
    cache.prepare("select b from t");
    cache.prepare("select a from t"); // used last: kept
    cache.prepare("select a, b from t"); // evicts "select b from t"
    cache.prepare("select a from t");
    cache.prepare("select b from t");
    expect(connection.compiled).toEqual([
      "select a from t",
      "select b from t",
      "select a, b from t",
      "select b from t",
    ]);
    connection.close();
  });

  it("each handle keeps its own raw mode on a shared statement", () => {
    const connection = counting();
    const cache = statementCache(connection, 8);
    const rows = cache.prepare("select a, b from t");
    const arrays = cache.prepare("select a, b from t").raw();
    expect(arrays.get()).toEqual([1, "x"]);
    expect(rows.get()).toMatchObject({ a: 1, b: "x" });
    expect(arrays.all()).toEqual([[1, "x"]]);
    expect(connection.compiled).toHaveLength(1);
    // A statement that returns no rows has no raw mode: asking for it is ignored, as drizzle never needs it.
    expect(() => cache.prepare("update t set a = 2").raw().run()).not.toThrow();
    connection.close();
  });
});
