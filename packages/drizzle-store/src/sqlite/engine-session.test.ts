import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { drizzle } from "drizzle-orm/libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drizzleStore, migrateDatabase } from "../sqlite.ts";
import { openSqlite } from "./connection.ts";
import { users, verifications } from "./schema.ts";

const { account, at, user, verification } = fixtures;

// The engine session (engine-session.ts) runs a file store's prepared statements: its rows must be the ones
// drizzle's own sessions give, and a statement that failed once must run again.
describe("file: store statements through the engine session", () => {
  let database: TestDatabase;
  let store: FullStore;
  beforeAll(async () => {
    database = await createTestSqliteFile();
    await migrateDatabase(database.url);
    store = drizzleStore({ dialect: "sqlite", url: database.url });
  });
  afterAll(async () => {
    await store?.close();
    await database?.dispose();
  });

  it("answers rows as drizzle's libSQL client reads them: dates, booleans, JSON and nulls", async () => {
    const u = user({ emailVerified: true, name: null, image: null, metadata: { plan: "pro" } });
    await store.users.create(u, [account(u.id)]);
    const code = verification({ userId: u.id, payload: null, expiresAt: at(600_000) });
    await store.verifications.issue(code);
    const client = openSqlite(database.url);
    try {
      const viaClient = drizzle({ client });
      const [userRow] = await viaClient.select().from(users).limit(1);
      const [codeRow] = await viaClient.select().from(verifications).limit(1);
      // Through the engine session: outside a transaction and inside one (the writer's own statements).
      expect(await store.users.findByEmail(u.email)).toEqual(userRow);
      expect(await store.verifications.findByIdentifier(code.identifier)).toEqual(codeRow);
      const inside = await store.transaction(async (tx) => [
        await tx.users.findByEmail(u.email),
        await tx.verifications.consume(code.id),
      ]);
      expect(inside).toEqual([userRow, codeRow]);
      expect(userRow).toMatchObject({ emailVerified: true, name: null, metadata: { plan: "pro" } });
      expect(codeRow?.expiresAt).toBeInstanceOf(Date);
    } finally {
      client.close();
    }
  });

  it("runs a one-row statement again after it failed (the engine leaves a failed `get` unreset)", async () => {
    // The issue upsert is one statement on the writer connection, stepped once per call: its NOT NULL constraint
    // refuses a row without a hash. The next issue through the same statement must run, not repeat the error.
    const refused = verification({ valueHash: null as unknown as string });
    await expect(store.verifications.issue(refused)).rejects.toThrow();
    const code = verification();
    await store.verifications.issue(code);
    expect(await store.verifications.findByIdentifier(code.identifier)).toMatchObject({ id: code.id });
    expect(await store.verifications.findByIdentifier(refused.identifier)).toBeNull();
  });

  it("inside a transaction, a unique conflict of the prepared user insert leaves the next insert working", async () => {
    const first = user();
    await store.users.create(first, [account(first.id)]);
    const clash = user({ email: first.email });
    const next = user();
    const results = await store.transaction(async (tx) => [
      await tx.users.create(clash, [account(clash.id)]),
      await tx.users.create(next, [account(next.id)]),
    ]);
    expect(results).toEqual([
      { ok: false, conflict: "email" },
      { ok: true, value: await store.users.findById(next.id) },
    ]);
  });
});
