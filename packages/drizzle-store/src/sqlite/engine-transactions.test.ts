import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import type { Client } from "@libsql/client";
import Database from "libsql";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { migrateDatabase } from "../sqlite.ts";
import { openSqlite, openSqliteForStore } from "./connection.ts";
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

  it("statements a transaction shares with the writes outside it keep writing, call after call", async () => {
    // A counter hit and a verification upsert run outside transactions (on the same connection) and inside them;
    // when one compiled statement served both (a cache by SQL text), the engine's unfinished RETURNING step made
    // the next call return nothing and write nothing.
    open();
    const at = Date.UTC(2026, 0, 1);
    for (let i = 1; i <= 4; i++) {
      expect((await store.counters.hit("shared", 60_000, at)).count).toBe(2 * i - 1);
      const inside = await store.transaction(async (tx) => tx.counters.hit("shared", 60_000, at));
      expect(inside.count).toBe(2 * i);
      const identifier = `otp:sign-in:${i}@example.com`;
      const row = { id: `v${i}`, identifier, valueHash: `h${i}`, attemptCount: 0, expiresAt: new Date(at + 60_000) };
      const record = { ...row, createdAt: new Date(at), userId: null, payload: null };
      await store.transaction(async (tx) => tx.verifications.issue(record));
      expect(await store.verifications.consume(`v${i}`)).toMatchObject({ identifier });
      await store.verifications.issue({ ...record, id: `w${i}` });
      expect(await store.transaction(async (tx) => tx.verifications.consume(`w${i}`))).toMatchObject({ identifier });
    }
  });
});
