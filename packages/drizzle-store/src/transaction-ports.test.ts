import type { FullStore, StorePorts } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { createTestPostgresDatabase, createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { drizzleStore as postgresStore, migrateDatabase as migratePostgres } from "./postgres.ts";
import { drizzleStore as sqliteStore, migrateDatabase as migrateSqlite } from "./sqlite.ts";

const { account, session, user } = fixtures;

// The ports a transaction body gets are built once and shared by the store's (SQLite) or the connection's
// (PostgreSQL, one connection here, so every transaction reuses it) later transactions. A port the body kept past
// its commit must not run in the next one.
const databases: TestDatabase[] = [];
const stores: FullStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await Promise.all(databases.map((d) => d.dispose()));
});

const open = {
  async sqlite() {
    const database = await createTestSqliteFile();
    databases.push(database);
    await migrateSqlite(database.url);
    return sqliteStore({ dialect: "sqlite", url: database.url });
  },
  async postgres() {
    const database = await createTestPostgresDatabase();
    databases.push(database);
    await migratePostgres(database.url);
    return postgresStore({ dialect: "postgres", url: database.url, maxConnections: 1 });
  },
};

describe.each(["sqlite", "postgres"] as const)("transaction ports built once (%s)", (kind) => {
  it("a port kept past its transaction is refused and writes nothing into a later transaction", async () => {
    const store = await open[kind]();
    stores.push(store);
    let kept: StorePorts | null = null;
    await store.transaction(async (tx) => {
      kept = tx;
    });
    const u = user();
    const seenInLater = await store.transaction(async (tx) => {
      await expect((kept as StorePorts | null)?.users.create(u, [])).rejects.toThrow(/after its transaction ended/);
      return tx.users.findByEmail(u.email);
    });
    expect(seenInLater).toBeNull();
    expect(await store.users.findByEmail(u.email)).toBeNull();
  });

  it("later transactions reuse the ports: each commits its own writes, a rolled-back one leaves none", async () => {
    const store = await open[kind]();
    stores.push(store);
    const [a, b, c] = [user(), user(), user()];
    const created = async (u: typeof a) =>
      store.transaction(async (tx) => {
        const result = await tx.users.create(u, [account(u.id)]);
        if (!result.ok) throw new Error("conflict");
        await tx.sessions.create(session(u.id));
        return result.value;
      });
    expect((await created(a)).email).toBe(a.email);
    await expect(
      store.transaction(async (tx) => {
        await tx.users.create(b, [account(b.id)]);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect((await created(c)).email).toBe(c.email);
    expect(await store.users.findByEmail(a.email)).not.toBeNull();
    expect(await store.users.findByEmail(b.email)).toBeNull();
    expect(await store.accounts.listByUser(b.id)).toEqual([]);
    expect(await store.users.findByEmail(c.email)).not.toBeNull();
    expect(await store.accounts.listByUser(c.id)).toHaveLength(1);
    expect(await store.sessions.listByUser(c.id)).toHaveLength(1);
  });

  it("a unique conflict inside a transaction is answered as a conflict by the prepared insert, and the rest commits", async () => {
    const store = await open[kind]();
    stores.push(store);
    const first = user();
    await store.users.create(first, [account(first.id)]);
    const clash = user({ email: first.email });
    const other = user();
    const results = await store.transaction(async (tx) => [
      await tx.users.create(clash, [account(clash.id)]),
      await tx.users.create(other, [account(other.id)]),
    ]);
    expect(results[0]).toEqual({ ok: false, conflict: "email" });
    expect(results[1]?.ok).toBe(true);
    expect(await store.users.findById(clash.id)).toBeNull();
    expect(await store.accounts.listByUser(clash.id)).toEqual([]);
    expect(await store.users.findById(other.id)).not.toBeNull();
  });
});
