import { afterAll, describe, expect, it } from "vitest";
import postgres from "postgres";
import { createClient } from "@libsql/client";
import { migrateDatabase } from "@latchkey/drizzle-store";
import { drizzleStore as postgresStore } from "@latchkey/drizzle-store/postgres";
import { drizzleStore as sqliteStore } from "@latchkey/drizzle-store/sqlite";
import { createTestPostgresDatabase, createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { createTestAuth } from "../../test/test-auth.ts";

// A database failure half-way through sign-up (after the user insert, at the account insert) must answer
// 500 INTERNAL_ERROR without driver text and leave no user without its account (the insert is transactional).
const DRIVER_TEXT = "driver-detail-7f3a";
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.dispose();
});

async function signUpThroughBrokenAccounts(store: ReturnType<typeof sqliteStore>) {
  const t = createTestAuth({ store });
  const res = await t.request("POST", "/sign-up/email", {
    body: { email: "ada@example.com", password: "long enough pw" },
  });
  const text = await res.text();
  expect(res.status).toBe(500);
  expect(JSON.parse(text)).toEqual({ code: "INTERNAL_ERROR", message: "Something went wrong" });
  expect(text).not.toContain(DRIVER_TEXT);
  expect(text).not.toMatch(/accounts|sql|postgres|sqlite/i);
  expect(await store.users.findByEmail("ada@example.com")).toBeNull();
}

describe("a database error mid-request", () => {
  it("libSQL: 500 INTERNAL_ERROR, no driver text, no half-written user", async () => {
    const db = await createTestSqliteFile();
    databases.push(db);
    await migrateDatabase(db.url);
    const client = createClient({ url: db.url });
    await client.execute(
      `create trigger break_accounts before insert on accounts begin select raise(abort, '${DRIVER_TEXT}'); end`,
    );
    client.close();
    const store = sqliteStore({ url: db.url });
    await signUpThroughBrokenAccounts(store);
    await store.close();
  });

  it("PostgreSQL: 500 INTERNAL_ERROR, no driver text, no half-written user", async () => {
    const db = await createTestPostgresDatabase();
    databases.push(db);
    await migrateDatabase(db.url);
    const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
    await sql.unsafe(
      `create function break_accounts() returns trigger language plpgsql as $$ begin raise exception '${DRIVER_TEXT}'; end $$`,
    );
    await sql.unsafe(
      "create trigger break_accounts before insert on accounts for each row execute function break_accounts()",
    );
    await sql.end();
    const store = postgresStore({ url: db.url });
    await signUpThroughBrokenAccounts(store);
    await store.close();
  });
});

describe("server logs of unexpected errors", () => {
  it("keep error names and first lines but drop the query parameters drivers append", async () => {
    const { describeError } = await import("./errors.ts");
    const cause = new Error("duplicate key");
    cause.name = "PostgresError";
    const error = new Error(
      'Failed query: insert into "accounts" values ($1, $2)\nparams: acc_1,$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
      { cause },
    );
    error.name = "DrizzleQueryError";
    const line = describeError(error);
    expect(line).toBe(
      'DrizzleQueryError: Failed query: insert into "accounts" values ($1, $2) <- PostgresError: duplicate key',
    );
    expect(line).not.toContain("argon2id");
  });
});
