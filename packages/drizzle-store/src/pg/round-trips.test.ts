import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { createTestPostgresDatabase, type TestDatabase } from "@latchkey/test-support";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../postgres.ts";
import { openPgPool } from "./connection.ts";
import { pgStore } from "./store.ts";

const { apiKey, at, user } = fixtures;

// What a quota verify sends to PostgreSQL over node-postgres: every statement goes through `pool.query`, and a
// named prepared statement is one round trip (Parse only on a connection's first use, pipelined with the rest).
describe("postgres API-key use: statements per call", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let store: FullStore;
  const sent: string[] = [];
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    await migrateDatabase(database.url);
    pool = openPgPool(database.url);
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { name?: string; text: string };
      sent.push(typeof first === "string" ? first : (first.name ?? first.text));
      return query(...args);
    };
    store = pgStore(pool, true);
  });
  afterAll(async () => {
    await store?.close();
    await database?.dispose();
  });

  const counted = async <T>(call: () => Promise<T>): Promise<{ result: T; statements: string[] }> => {
    sent.length = 0;
    const result = await call();
    return { result, statements: [...sent] };
  };

  it("a lookup is one prepared read; an admitted use is one prepared UPDATE ... RETURNING and nothing else", async () => {
    const u = user();
    await store.users.create(u, []);
    const k = apiKey(u.id, { remaining: 1, rateLimitMax: 5, rateLimitWindowMs: 60_000 });
    await store.apiKeys!.create(k);
    for (let round = 0; round < 2; round++) {
      // The second round runs on statements the connection already prepared.
      const lookup = await counted(() => store.apiKeys!.findByHash(k.keyHash));
      expect(lookup.statements).toEqual(["api_keys_by_hash"]);
      expect(lookup.result?.id).toBe(k.id);
      // What a verify reads: the key and its owner, one prepared statement (a join), one round trip.
      const withOwner = await counted(() => store.apiKeys!.findByHashWithOwner(k.keyHash));
      expect(withOwner.statements).toEqual(["api_keys_by_hash_with_owner"]);
      expect(withOwner.result).toEqual({ key: k, user: u });
    }
    const used = await counted(() => store.apiKeys!.consumeUse(k.id, at(1)));
    expect(used.result).toMatchObject({ ok: true, key: { remaining: 0, requestCount: 1 } });
    expect(used.statements).toEqual(["api_keys_consume_use"]);
    // A refusal reads the row once more, only to name the reason.
    const refused = await counted(() => store.apiKeys!.consumeUse(k.id, at(2)));
    expect(refused.result).toMatchObject({ ok: false, reason: "USAGE_EXCEEDED" });
    expect(refused.statements).toEqual(["api_keys_consume_use", "api_keys_by_id"]);
  });
});
