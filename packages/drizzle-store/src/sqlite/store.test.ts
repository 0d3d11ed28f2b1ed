import type { FullStore } from "@latchkey/core";
import type { Client, InStatement, TransactionMode } from "@libsql/client";
import { fixtures } from "@latchkey/store-conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drizzleStore, migrateDatabase } from "../sqlite.ts";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { userConflictOf } from "./errors.ts";
import { openSqlite, openSqliteForStore } from "./connection.ts";

const { account, apiKey, at, session, user } = fixtures;

describe("libsql store mapping", () => {
  let database: TestDatabase;
  let client: Client;
  let store: FullStore;
  beforeAll(async () => {
    database = await createTestSqliteFile();
    await migrateDatabase(database.url);
    client = openSqlite(database.url);
    store = drizzleStore({ dialect: "sqlite", client });
  });
  afterAll(async () => {
    await store?.close();
    client?.close();
    await database?.dispose();
  });

  it("sweeps a file in batches of 200 (its statements run on this thread); a client of a server keeps 1,000", () => {
    expect(store.sweepBatchSize).toBe(200);
    const server = new Proxy(client, {
      get: (target, property) => (property === "protocol" ? "ws" : Reflect.get(target, property, target)),
    });
    expect(drizzleStore({ dialect: "sqlite", client: server }).sweepBatchSize).toBeUndefined();
  });

  it("maps unique violations of users.email and users.username, and only those", async () => {
    const u = user({ username: fixtures.uid("n").toLowerCase() });
    const other = user();
    await store.users.create(u, []);
    await store.users.create(other, []);
    const email = await client
      .execute({ sql: "update users set email = ? where id = ?", args: [u.email, other.id] })
      .catch((e: unknown) => e);
    expect(userConflictOf(email)).toBe("email");
    const name = await client
      .execute({ sql: "update users set username = ? where id = ?", args: [u.username, other.id] })
      .catch((e: unknown) => e);
    expect(userConflictOf(name)).toBe("username");
    const s = session(u.id);
    await store.sessions.create(s);
    const sameToken = await store.sessions.create(session(u.id, { tokenHash: s.tokenHash })).catch((e: unknown) => e);
    expect(sameToken).toBeInstanceOf(Error);
    expect(userConflictOf(sameToken)).toBeNull();
    expect(userConflictOf(new Error("UNIQUE constraint failed: users.email"))).toBeNull();
  });

  it("users without a username and codes without a user stay out of those indexes; lookups by them still use them", async () => {
    const definitions = await client.execute(
      "select name, sql from sqlite_master where name in ('users_username_unique', 'verifications_user_id_idx') order by name",
    );
    expect(definitions.rows.map((r) => [r.name, String(r.sql).replace(/^.* WHERE /s, "")])).toEqual([
      ["users_username_unique", '"users"."username" is not null'],
      ["verifications_user_id_idx", '"verifications"."user_id" is not null'],
    ]);
    const own = openSqlite(database.url);
    const plan = async (statement: string) =>
      (await own.execute({ sql: `explain query plan ${statement}`, args: ["x"] })).rows.map((r) => r.detail);
    expect(await plan("select id from users where username = ?")).toEqual([
      "SEARCH users USING INDEX users_username_unique (username=?)",
    ]);
    expect(await plan("select id from verifications where user_id = ?")).toEqual([
      "SEARCH verifications USING INDEX verifications_user_id_idx (user_id=?)",
    ]);
    own.close();
    // Two users without a username do not collide; a username still is unique.
    const name = fixtures.uid("n").toLowerCase();
    expect((await store.users.create(user(), [])).ok).toBe(true);
    expect((await store.users.create(user(), [])).ok).toBe(true);
    expect((await store.users.create(user({ username: name }), [])).ok).toBe(true);
    expect(await store.users.create(user({ username: name }), [])).toMatchObject({ ok: false, conflict: "username" });
  });

  it("rolls users.create back when an insert after the user's fails (no user row is left)", async () => {
    const u = user();
    const dup = account(u.id);
    await expect(store.users.create(u, [dup, { ...dup }])).rejects.toThrow();
    expect(await store.users.findById(u.id)).toBeNull();
    expect(await store.users.findByEmail(u.email)).toBeNull();
    const { rows } = await client.execute({ sql: "select count(*) as n from users where id = ?", args: [u.id] });
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it("a second credential account for a user violates accounts_credential_unique", async () => {
    const u = user();
    await expect(store.users.create(u, [account(u.id), account(u.id)])).rejects.toThrow();
    expect(await store.users.findById(u.id)).toBeNull();
  });

  it("stores instants as integer epoch milliseconds and JSON as text", async () => {
    const u = user({ createdAt: at(123), metadata: { b: 1, a: [true] } });
    await store.users.create(u, []);
    const { rows } = await client.execute({
      sql: "select typeof(created_at) as type, created_at, metadata from users where id = ?",
      args: [u.id],
    });
    expect({ ...rows[0] }).toEqual({
      type: "integer",
      created_at: Date.UTC(2026, 0, 1, 12, 0, 0, 123),
      metadata: '{"b":1,"a":[true]}',
    });
  });

  it("answers a cursor it did not make with an empty page", async () => {
    const u = user();
    await store.users.create(u, []);
    await store.apiKeys.create(apiKey(u.id));
    expect(await store.apiKeys.listByUser(u.id, { limit: 10, cursor: "not-a-cursor" })).toEqual({
      items: [],
      nextCursor: null,
    });
    expect(await store.audit.list({ userId: u.id, limit: 10, cursor: "x:y" })).toEqual({ items: [], nextCursor: null });
  });

  it("runs drizzle's batches (users.create with accounts) as libSQL write transactions", async () => {
    const modes: unknown[] = [];
    const recording = new Proxy(client, {
      get(target, property) {
        if (property === "batch")
          return (statements: InStatement[], mode?: TransactionMode) => (
            modes.push(mode), target.batch(statements, mode)
          );
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const u = user();
    expect((await drizzleStore({ dialect: "sqlite", client: recording }).users.create(u, [account(u.id)])).ok).toBe(
      true,
    );
    expect(modes).toEqual(["write"]);
  });

  it("close() leaves a client the caller passed in open", async () => {
    const borrowed = drizzleStore({ dialect: "sqlite", client });
    await borrowed.close();
    expect((await client.execute("select 1 as one")).rows[0]?.one).toBe(1);
  });

  it("a store that opens its own file: database uses WAL and synchronous=NORMAL; a caller's client keeps its settings", async () => {
    const own = openSqliteForStore(database.url);
    const pragma = async (c: Client, name: string) =>
      Object.values((await c.execute(`pragma ${name}`)).rows[0] ?? {})[0];
    // Concurrent first calls: each must see the settings, whichever connection it lands on.
    const seen = await Promise.all([
      pragma(own, "journal_mode"),
      pragma(own, "synchronous"),
      pragma(own, "synchronous"),
    ]);
    expect(seen).toEqual(["wal", 1, 1]);
    own.close();
    const caller = openSqlite(database.url);
    const borrowed = drizzleStore({ dialect: "sqlite", client: caller });
    expect(await borrowed.users.findById("nobody")).toBeNull();
    expect(await pragma(caller, "synchronous")).toBe(2);
    caller.close();
  });
});
