import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@latchkey/test-support";
import { closeMigratedFile, openMigratedFile } from "../../test/sqlite-file-store.ts";
import { users, verifications } from "./schema.ts";
import { openSqlite } from "./connection.ts";
import { drizzle } from "drizzle-orm/libsql";

const { account, at, user, verification } = fixtures;

describe("file: store lookups on the read connection", () => {
  let database: TestDatabase;
  let store: FullStore;
  beforeAll(async () => ({ database, store } = await openMigratedFile()));
  afterAll(() => closeMigratedFile(store, database));

  // The engine connections run drizzle's queries through a lean session (engine-session.ts): its rows must be the
  // ones drizzle's own sessions give, and a statement that failed once must run again. (Inside a transaction, a
  // conflict of the prepared user insert followed by another insert: transaction-ports.test.ts.)
  it("engine session: answers rows as drizzle's libSQL client reads them (dates, booleans, JSON, nulls)", async () => {
    const u = user({ emailVerified: true, name: null, image: null, metadata: { plan: "pro" } });
    await store.users.create(u, [account(u.id)]);
    const code = verification({ userId: u.id, payload: null, expiresAt: at(600_000) });
    await store.verifications.issue(code);
    const client = openSqlite(database.url);
    try {
      const viaClient = drizzle({ client });
      const [userRow] = await viaClient.select().from(users).where(eq(users.email, u.email));
      const [codeRow] = await viaClient
        .select()
        .from(verifications)
        .where(eq(verifications.identifier, code.identifier));
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

  it("engine session: runs a one-row statement again after it failed (the engine leaves a failed `get` unreset)", async () => {
    // The issue upsert is one statement on the writer connection, stepped once per call: its NOT NULL constraint
    // refuses a row without a hash. The next issue through the same statement must run, not repeat the error.
    const refused = verification({ valueHash: null as unknown as string });
    await expect(store.verifications.issue(refused)).rejects.toThrow();
    const code = verification();
    await store.verifications.issue(code);
    expect(await store.verifications.findByIdentifier(code.identifier)).toMatchObject({ id: code.id });
    expect(await store.verifications.findByIdentifier(refused.identifier)).toBeNull();
  });
});
