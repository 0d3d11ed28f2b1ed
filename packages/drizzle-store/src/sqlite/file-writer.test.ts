import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@latchkey/test-support";
import { closeMigratedFile, openMigratedFile } from "../../test/sqlite-file-store.ts";
import { fileReads, writeThrough } from "./file-reads.ts";
import { apiKeys } from "./schema.ts";
import { openSqlite, openSqliteForStore } from "./connection.ts";

const { apiKey, at, user } = fixtures;

describe("file: store lookups on the read connection", () => {
  let database: TestDatabase;
  let store: FullStore;
  beforeAll(async () => ({ database, store } = await openMigratedFile()));
  afterAll(() => closeMigratedFile(store, database));

  it("runs a single-statement write on the writer connection, visible at once to the client and the read connection", async () => {
    const u = user();
    await store.users.create(u, []);
    const k = apiKey(u.id, { remaining: 10 });
    await store.apiKeys.create(k);
    const own = openSqliteForStore(database.url);
    const reads = fileReads(own);
    const wdb = (await reads.writer())!;
    expect(wdb.all(sql`pragma synchronous`)).toEqual([{ synchronous: 1 }]); // NORMAL, as the client's connection
    const use = writeThrough(
      reads,
      (w) =>
        w
          .update(apiKeys)
          .set({ remaining: sql`${apiKeys.remaining} - 1` })
          .where(sql`${apiKeys.id} = ${sql.placeholder("id")}`)
          .returning()
          .prepare(),
      () => Promise.reject(new Error("the writer connection was not used")),
    );
    expect((await use({ id: k.id }))[0]?.remaining).toBe(9);
    expect((await store.apiKeys.findById(k.id))?.remaining).toBe(9);
    expect((await store.apiKeys.findByHash(k.keyHash))?.remaining).toBe(9);
    // The store's own consumeUse (which runs there too) and the client's writes keep one count.
    await store.apiKeys.consumeUse(k.id, at(10));
    await store.apiKeys.update(k.id, null, { remaining: 100 });
    await store.apiKeys.consumeUse(k.id, at(11));
    expect((await use({ id: k.id }))[0]?.remaining).toBe(98);
    await reads.close();
    own.close();
    const memory = openSqlite(":memory:");
    const none = fileReads(memory);
    expect(await none.writer()).toBeNull();
    await none.close();
    memory.close();
  });

  it("an API key's use on the writer connection waits for an open transaction of the store instead of meeting its lock", async () => {
    const u = user();
    await store.users.create(u, []);
    const k = apiKey(u.id, { remaining: 5 });
    await store.apiKeys.create(k);
    await store.apiKeys.consumeUse(k.id, at(1)); // the writer connection is open and its statement prepared
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const other = user();
    const transaction = store.transaction(async (tx) => {
      await tx.users.create(other, []); // the transaction now holds SQLite's write lock
      entered();
      await held;
    });
    await inside;
    // Without the gate this write spins in SQLite's busy handler on the thread the transaction needs, then fails.
    const use = store.apiKeys.consumeUse(k.id, at(2));
    finish();
    await transaction;
    expect((await use).ok).toBe(true);
    expect((await store.apiKeys.findById(k.id))?.remaining).toBe(3);
    expect(await store.users.findById(other.id)).not.toBeNull();
  });
});
