import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drizzleStore, migrateDatabase } from "../sqlite.ts";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { closeMigratedFile, openMigratedFile } from "../../test/sqlite-file-store.ts";
import { fileReads, readThrough } from "./file-reads.ts";
import { users } from "./schema.ts";
import { openSqlite, openSqliteForStore } from "./connection.ts";
import { apiKeysPort } from "./api-keys.ts";
import { drizzle } from "drizzle-orm/libsql";

const { apiKey, at, session, user } = fixtures;
// Drizzle wraps a driver error (as `cause`) in one naming the query.
const driverMessage = (error: unknown) =>
  String(error instanceof Error && error.cause instanceof Error ? error.cause.message : error);

describe("file: store lookups on the read connection", () => {
  let database: TestDatabase;
  let store: FullStore;
  beforeAll(async () => ({ database, store } = await openMigratedFile()));
  afterAll(() => closeMigratedFile(store, database));

  it("opens a read connection for a file: database, and none for an in-memory one", async () => {
    const own = openSqliteForStore(database.url);
    const reads = fileReads(own);
    const rdb = await reads.connection();
    expect(rdb).not.toBeNull();
    expect(rdb!.all(sql`pragma journal_mode`)).toEqual([{ journal_mode: "wal" }]);
    await reads.close();
    own.close();
    const memory = openSqlite(":memory:");
    const none = fileReads(memory);
    expect(await none.connection()).toBeNull();
    await none.close();
    memory.close();
  });

  it("refuses writes on the read connection (query_only), so no write can bypass the client's batches", async () => {
    const own = openSqliteForStore(database.url);
    const reads = fileReads(own);
    const rdb = (await reads.connection())!;
    const refused = (() => {
      try {
        rdb.run(sql`delete from users`);
        return null;
      } catch (error) {
        return error;
      }
    })();
    expect(driverMessage(refused)).toMatch(/readonly|query_only|attempt to write/i);
    await reads.close();
    own.close();
  });

  it("reads its own writes: each client write is visible to the next lookup (stale snapshot regression)", async () => {
    const u = user();
    expect(await store.users.findByEmail(u.email)).toBeNull();
    await store.users.create(u, []);
    expect(await store.users.findByEmail(u.email)).toEqual(u);
    const renamed = `renamed-${u.email}`;
    await store.users.update(u.id, { email: renamed, updatedAt: at(5) });
    expect(await store.users.findByEmail(u.email)).toBeNull();
    expect(await store.users.findByEmail(renamed)).toEqual({ ...u, email: renamed, updatedAt: at(5) });

    const s = session(u.id);
    await store.sessions.create(s);
    for (let i = 1; i <= 5; i++) {
      await store.sessions.touch(s.id, at(1000 * i), at(i));
      expect((await store.sessions.findByTokenHash(s.tokenHash))?.session).toEqual({
        ...s,
        expiresAt: at(1000 * i),
        updatedAt: at(i),
      });
    }
    await store.sessions.delete(s.id);
    expect(await store.sessions.findByTokenHash(s.tokenHash)).toBeNull();

    const k = apiKey(u.id, { remaining: 3 });
    await store.apiKeys.create(k);
    expect(await store.apiKeys.findByHash(k.keyHash)).toEqual(k);
    await store.apiKeys.consumeUse(k.id, at(10));
    expect((await store.apiKeys.findByHash(k.keyHash))?.remaining).toBe(2);
    await store.apiKeys.update(k.id, null, { enabled: false });
    expect((await store.apiKeys.findByHash(k.keyHash))?.enabled).toBe(false);
    await store.users.delete(u.id);
    expect(await store.apiKeys.findByHash(k.keyHash)).toBeNull();
  });

  it("reads a key with its owner (a verify's one read) on the engine connection, mapped as the client path does", async () => {
    const u = user({ username: `u${Date.now()}`, image: "https://example.com/a.png", metadata: { a: [1, null] } });
    await store.users.create(u, []);
    const k = apiKey(u.id, { remaining: 3, permissions: { files: ["read"] }, expiresAt: at(60_000) });
    await store.apiKeys.create(k);
    const own = openSqliteForStore(database.url);
    const viaClient = apiKeysPort(drizzle({ client: own }), null);
    const reads = fileReads(own);
    const onEngine = apiKeysPort(drizzle({ client: own }), reads);
    expect(await viaClient.findByHashWithOwner(k.keyHash)).toEqual({ key: k, user: u });
    // The first call opens the engine connection (it asks the client for the file's path) ...
    expect(await onEngine.findByHashWithOwner(k.keyHash)).toEqual({ key: k, user: u });
    own.close();
    // ... and from then on the read needs no client at all: it runs on the engine's prepared statement.
    await expect(viaClient.findByHashWithOwner(k.keyHash)).rejects.toThrow();
    expect(await onEngine.findByHashWithOwner(k.keyHash)).toEqual({ key: k, user: u });
    // It reads the store's writes (an owner change, the owner's deletion) at once.
    await store.users.update(u.id, { name: "Renamed", updatedAt: at(7) });
    expect((await onEngine.findByHashWithOwner(k.keyHash))?.user).toEqual({ ...u, name: "Renamed", updatedAt: at(7) });
    await store.users.delete(u.id);
    expect(await onEngine.findByHashWithOwner(k.keyHash)).toBeNull();
    await reads.close();
  });

  it("maps rows exactly as the client path does (dates, booleans, JSON)", async () => {
    const u = user({ createdAt: at(123), metadata: { b: 1, a: [true, null, "x"] }, emailVerified: true });
    await store.users.create(u, []);
    const own = openSqliteForStore(database.url);
    const reads = fileReads(own);
    const viaClient = await store.users.findByEmail(u.email);
    const cached = readThrough(
      reads,
      (rdb) =>
        rdb
          .select()
          .from(users)
          .where(sql`${users.email} = ${sql.placeholder("value")}`)
          .prepare(),
      () => Promise.reject(new Error("the read connection was not used")),
    );
    expect(await cached({ value: u.email })).toEqual([viaClient]);
    expect(viaClient).toEqual(u);
    await reads.close();
    own.close();
  });

  it("looks up on the writer connection while it is idle, and on the read connection while a transaction is open there", async () => {
    const own = openSqliteForStore(database.url);
    const reads = fileReads(own);
    const engine = (await reads.transactions())!;
    const rdb = (await reads.connection())!;
    const on: string[] = [];
    const byEmail = readThrough(
      reads,
      (db) => {
        on.push(db === engine.db ? "writer" : db === rdb ? "reader" : "other");
        return db
          .select()
          .from(users)
          .where(sql`${users.email} = ${sql.placeholder("value")}`)
          .prepare();
      },
      () => Promise.reject(new Error("the client was used")),
    );
    const u = user();
    expect(await byEmail({ value: u.email })).toEqual([]);
    engine.begin();
    engine.db.insert(users).values(u).run();
    // The writer would read its own uncommitted row: the lookup goes where only committed rows are seen.
    expect(await byEmail({ value: u.email })).toEqual([]);
    engine.commit();
    expect(await byEmail({ value: u.email })).toEqual([u]);
    engine.begin();
    engine.db.delete(users).where(sql`${users.id} = ${u.id}`).run();
    expect(await byEmail({ value: u.email })).toEqual([u]);
    engine.rollback();
    expect(await byEmail({ value: u.email })).toEqual([u]);
    expect(on).toEqual(["writer", "reader"]);
    await reads.close();
    own.close();
  });

  it("a store opened before its tables exist falls back to the client, then uses the read connection once migrated", async () => {
    const fresh = await createTestSqliteFile();
    const early = drizzleStore({ dialect: "sqlite", url: fresh.url });
    expect(driverMessage(await early.users.findByEmail("a@example.com").catch((e: unknown) => e))).toMatch(
      /no such table/i,
    );
    await migrateDatabase(fresh.url);
    const u = user();
    await early.users.create(u, []);
    expect(await early.users.findByEmail(u.email)).toEqual(u);
    await early.close();
    await fresh.dispose();
  });
});
