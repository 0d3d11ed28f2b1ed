import type { FullStore } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";
import type { Sql } from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../postgres.ts";
import { drizzleStore } from "../postgres-js.ts";
import { createTestPostgresDatabase, type TestDatabase } from "@latchkey/test-support";
import { userConflictOf } from "./errors.ts";
import { openPostgres } from "./postgres-js.ts";

const { account, apiKey, at, session, user } = fixtures;

describe("postgres store mapping", () => {
  let database: TestDatabase;
  let client: Sql;
  let store: FullStore;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    await migrateDatabase(database.url);
    client = openPostgres(database.url);
    store = drizzleStore({ dialect: "postgres", client });
  });
  afterAll(async () => {
    await store?.close();
    await client?.end({ timeout: 5 });
    await database?.dispose();
  });

  it("maps unique violations of users_email_unique and users_username_unique, and only those", async () => {
    const u = user({ username: fixtures.uid("n").toLowerCase() });
    const other = user();
    await store.users.create(u, []);
    await store.users.create(other, []);
    const email = await client`update users set email = ${u.email} where id = ${other.id}`.catch((e: unknown) => e);
    expect(userConflictOf(email)).toBe("email");
    const name = await client`update users set username = ${u.username} where id = ${other.id}`.catch(
      (e: unknown) => e,
    );
    expect(userConflictOf(name)).toBe("username");
    const s = session(u.id);
    await store.sessions.create(s);
    const sameToken = await store.sessions.create(session(u.id, { tokenHash: s.tokenHash })).catch((e: unknown) => e);
    expect(sameToken).toBeInstanceOf(Error);
    expect(userConflictOf(sameToken)).toBeNull();
    expect(userConflictOf(new Error("not a database error"))).toBeNull();
  });

  it("users without a username and codes without a user stay out of those indexes; lookups by them still use them", async () => {
    const definitions = await client`select indexname, indexdef from pg_indexes
      where indexname in ('users_username_unique', 'verifications_user_id_idx') order by indexname`;
    expect(definitions.map((r) => [r.indexname, String(r.indexdef).replace(/^.* WHERE /s, "")])).toEqual([
      ["users_username_unique", "(username IS NOT NULL)"],
      ["verifications_user_id_idx", "(user_id IS NOT NULL)"],
    ]);
    // The tables are small here: the planner is asked to use an index if any fits.
    const plans = await client.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      const byUsername = await tx.unsafe("explain select id from users where username = $1", ["x"]);
      const byUser = await tx.unsafe("explain delete from verifications where user_id = $1", ["x"]);
      return [byUsername, byUser].map((rows) => rows.map((r) => String(r["QUERY PLAN"])).join("\n"));
    });
    expect(plans[0]).toMatch(/Index (Only )?Scan using users_username_unique/);
    expect(plans[1]).toMatch(/(Index|Bitmap Index) Scan (using|on) verifications_user_id_idx/);
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
    const rows = await client<{ n: number }[]>`select count(*)::int as n from users where id = ${u.id}`;
    expect(rows[0]?.n).toBe(0);
  });

  it("a second credential account for a user violates accounts_credential_unique", async () => {
    const u = user();
    await expect(store.users.create(u, [account(u.id), account(u.id)])).rejects.toThrow();
    expect(await store.users.findById(u.id)).toBeNull();
  });

  it("stores instants as timestamptz with milliseconds and JSON as json text", async () => {
    const u = user({ createdAt: at(123), metadata: { b: 1, a: [true] } });
    await store.users.create(u, []);
    const [row] = await client<{ type: string; same: boolean; metadata: string }[]>`
      select pg_typeof(created_at)::text as type, created_at = ${"2026-01-01T12:00:00.123Z"}::timestamptz as same,
        metadata::text as metadata from users where id = ${u.id}`;
    expect(row).toEqual({ type: "timestamp with time zone", same: true, metadata: '{"b":1,"a":[true]}' });
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

  it("close() leaves a client the caller passed in open", async () => {
    const borrowed = drizzleStore({ dialect: "postgres", client });
    await borrowed.close();
    const rows = await client<{ one: number }[]>`select 1 as one`;
    expect(rows[0]?.one).toBe(1);
  });
});
