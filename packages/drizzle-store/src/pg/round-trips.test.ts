import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import { createTestPostgresDatabase, type TestDatabase } from "@latchkey/test-support";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../postgres.ts";
import { openPgPool } from "./connection.ts";
import { pgStore } from "./store.ts";

const { account, apiKey, at, session, user } = fixtures;

// What the store sends to PostgreSQL over node-postgres, counted on the wire of every pooled connection: the
// statements it binds (a named prepared statement is one Bind, its Parse only on a connection's first use) or
// sends as simple queries, and its round trips (each Sync or simple query waits for one ReadyForQuery). One
// connection, so a transaction's connection is the one every test has warmed.
let database: TestDatabase;
let pool: pg.Pool;
let store: FullStore;
const sent: string[] = [];
let roundTrips = 0;
let describes = 0;
beforeAll(async () => {
  database = await createTestPostgresDatabase();
  await migrateDatabase(database.url);
  pool = openPgPool(database.url, { maxConnections: 1 });
  pool.on("connect", (client) => {
    const wire = (client as unknown as { connection: Record<string, (...args: unknown[]) => unknown> }).connection;
    const { bind, query, sync } = wire as Record<string, (...args: unknown[]) => unknown>;
    let parsed = "";
    const parse = wire.parse!;
    wire.parse = (message: unknown) => {
      parsed = (message as { text: string }).text;
      return parse.call(wire, message);
    };
    wire.bind = (message: unknown) => {
      sent.push((message as { statement?: string }).statement || parsed);
      return bind!.call(wire, message);
    };
    wire.query = (text: unknown) => {
      sent.push(text as string);
      roundTrips += 1;
      return query!.call(wire, text);
    };
    const describe = wire.describe!;
    wire.describe = (message: unknown) => {
      describes += 1;
      return describe.call(wire, message);
    };
    wire.sync = () => {
      roundTrips += 1;
      return sync!.call(wire);
    };
  });
  store = pgStore(pool, true);
});
afterAll(async () => {
  await store?.close();
  await database?.dispose();
});

const counted = async <T>(call: () => Promise<T>): Promise<{ result: T; statements: string[]; roundTrips: number }> => {
  sent.length = 0;
  roundTrips = 0;
  const result = await call();
  return { result, statements: [...sent], roundTrips };
};

describe("postgres transactions: BEGIN rides on the first statement", () => {
  it("a connection's first transaction prepares BEGIN; later ones send it with their first statement", async () => {
    // A fresh connection (the pool holds one): its first transaction begins on its own round trip.
    await pool.query("select pg_terminate_backend(pg_backend_pid())").catch(() => undefined);
    const signUp = async () => {
      const u = user();
      const a = account(u.id);
      const s = session(u.id);
      return store.transaction(async (tx) => {
        await tx.users.create(u, [a]);
        await tx.sessions.create(s);
        return u.id;
      });
    };
    const statements = ["latchkey_begin", "users_insert_with_account", "sessions_insert", "commit"];
    const first = await counted(signUp);
    expect(first.statements).toEqual(statements);
    expect(first.roundTrips).toBe(4);
    for (let round = 0; round < 2; round++) {
      const later = await counted(signUp);
      expect(later.statements).toEqual(statements);
      // BEGIN, the insert and the session in two round trips, then COMMIT.
      expect(later.roundTrips).toBe(3);
      expect(await store.users.findById(later.result)).not.toBeNull();
      expect(await store.accounts.listByUser(later.result)).toHaveLength(1);
    }
  });

  it("the first statement runs inside the transaction it opens: a failure after it rolls both back", async () => {
    const u = user();
    const failed = await counted(() =>
      store
        .transaction(async (tx) => {
          await tx.users.create(u, [account(u.id)]);
          throw new Error("after the first statement");
        })
        .catch((error: unknown) => error),
    );
    expect(failed.result).toBeInstanceOf(Error);
    expect(failed.statements).toEqual(["latchkey_begin", "users_insert_with_account", "rollback"]);
    expect(await store.users.findById(u.id)).toBeNull();
    expect(await store.accounts.listByUser(u.id)).toEqual([]);
  });

  it("a body that sends nothing sends no BEGIN, COMMIT or ROLLBACK, and the next statements run plain", async () => {
    const idle = await counted(() => store.transaction(async () => 7));
    expect(idle).toEqual({ result: 7, statements: [], roundTrips: 0 });
    const thrown = await counted(() =>
      store
        .transaction(async () => {
          throw new Error("before any statement");
        })
        .catch((error: unknown) => (error as Error).message),
    );
    expect(thrown).toEqual({ result: "before any statement", statements: [], roundTrips: 0 });
    // The connection the bodies held is not left armed: a read outside a transaction is one plain statement.
    const u = user();
    await store.users.create(u, [account(u.id)]);
    const read = await counted(() => store.users.findById(u.id));
    expect(read).toEqual({ result: u, statements: ["users_by_id"], roundTrips: 1 });
    const client = await pool.connect();
    try {
      expect(client.getTransactionStatus?.() ?? "I").toBe("I");
    } finally {
      client.release();
    }
  });
});

describe("postgres prepared statements: lean execution", () => {
  it("a statement is Described on its first execution only, and its rows decode the same after", async () => {
    const u = user({ metadata: { plan: "pro", tags: ["a", "b"] }, username: fixtures.uid("n").toLowerCase() });
    const s = session(u.id, { ip: null, userAgent: "ua" });
    await store.users.create(u, [account(u.id)]);
    await store.sessions.create(s);
    // A new connection (the pool holds one): Parse again, but the shape is known, so no Describe.
    await pool.query("select pg_terminate_backend(pg_backend_pid())").catch(() => undefined);
    for (let round = 0; round < 3; round++) {
      describes = 0;
      const read = await counted(() => store.sessions.findByTokenHash(s.tokenHash));
      expect(read.result).toEqual({ session: s, user: u });
      expect(read.statements).toEqual(["sessions_by_token_hash"]);
      expect(read.roundTrips).toBe(1);
      if (round > 0) expect(describes).toBe(0);
    }
    // Rows a write reports: the changed-row count of an UPDATE without RETURNING.
    describes = 0;
    await store.sessions.touch(s.id, at(99_000), at(99_000));
    await store.sessions.touch(s.id, at(99_500), at(99_500));
    expect(describes).toBeLessThanOrEqual(1);
    expect((await store.sessions.findByTokenHash(s.tokenHash))?.session.expiresAt).toEqual(at(99_500));
    // A server error is the statement's, typed as node-postgres types it (a unique violation of the token hash).
    const clash = await store.sessions.create({ ...s, id: fixtures.uid("s") }).catch((error: unknown) => error);
    expect(clash).toBeInstanceOf(Error);
    expect(((clash as Error).cause as { code?: string } | undefined)?.code).toBe("23505");
    expect(await store.sessions.findByTokenHash(s.tokenHash)).not.toBeNull();
  });
});

describe("postgres sign-up: statements per call", () => {
  it("inserts the user and its account in one statement, outside a transaction and in one", async () => {
    const alone = user();
    const aloneAccount = account(alone.id);
    const created = await counted(() => store.users.create(alone, [aloneAccount]));
    expect(created.statements).toEqual(["users_insert_with_account"]);
    expect(created.result).toEqual({ ok: true, value: alone });
    expect(await store.accounts.listByUser(alone.id)).toEqual([aloneAccount]);

    const inTx = user({ username: fixtures.uid("n").toLowerCase(), metadata: { plan: "pro", nested: { a: [1] } } });
    const inTxAccount = account(inTx.id, { providerId: "EMAIL_OTP", passwordHash: null });
    const s = session(inTx.id);
    const signUp = await counted(() =>
      store.transaction(async (tx) => {
        const result = await tx.users.create(inTx, [inTxAccount]);
        await tx.sessions.create(s);
        return result;
      }),
    );
    expect(signUp.result).toEqual({ ok: true, value: inTx });
    // No savepoint and no second INSERT: the sign-up's statement, then the session's.
    expect(signUp.statements).toEqual(["latchkey_begin", "users_insert_with_account", "sessions_insert", "commit"]);
    expect(await store.users.findById(inTx.id)).toEqual(inTx);
    expect(await store.accounts.listByUser(inTx.id)).toEqual([inTxAccount]);
  });

  it("a taken email or username inserts nothing, is named, and leaves the caller's transaction usable", async () => {
    const taken = user({ username: fixtures.uid("n").toLowerCase() });
    await store.users.create(taken, [account(taken.id)]);
    for (const [field, clash] of [
      ["email", user({ email: taken.email })],
      ["username", user({ username: taken.username })],
    ] as const) {
      const later = user();
      const run = await counted(() =>
        store.transaction(async (tx) => {
          const result = await tx.users.create(clash, [account(clash.id)]);
          // The transaction goes on after the refusal (a failed statement would have aborted it).
          const next = await tx.users.create(later, [account(later.id)]);
          return { result, next };
        }),
      );
      expect(run.result).toEqual({ result: { ok: false, conflict: field }, next: { ok: true, value: later } });
      expect(run.statements.slice(0, 2)).toEqual(["latchkey_begin", "users_insert_with_account"]);
      expect(run.statements.at(-1)).toBe("commit");
      expect(run.statements).not.toContain("rollback");
      expect(await store.users.findById(clash.id)).toBeNull();
      // The account of a refused user is never written (it is selected from the user insert's rows).
      expect(await store.accounts.listByUser(clash.id)).toEqual([]);
      expect(await store.users.findById(later.id)).toEqual(later);
    }
  });
});

describe("postgres API-key use: statements per call", () => {
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
