import { createTestPostgresDatabase, type TestDatabase } from "@latchkey/test-support";
import { lte } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../postgres.ts";
import { inBatch } from "./batch.ts";
import { sessions } from "./schema.ts";

// Issue 27: a sweep batch must find its rows through the primary key. `id in (select ... limit n)` is planned as a
// hash semi join over a sequential scan of the whole table, so every batch read every row; the plan is asked of
// PostgreSQL itself, on a table large enough for the planner to choose.

type PlanNode = { "Node Type": string; "Parent Relationship"?: string; "Index Name"?: string; Plans?: PlanNode[] };

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe("PostgreSQL sweep batches", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    await migrateDatabase(database.url);
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
    await pool.query(
      `insert into users (id, email, email_verified, metadata, app_metadata, created_at, updated_at)
       values ('u', 'u@example.com', true, '{}', '{}', now(), now())`,
    );
    await pool.query(
      `insert into sessions (id, user_id, token_hash, expires_at, created_at, updated_at, remember_me)
       select 's' || i, 'u', 'h' || i, now() - interval '1 day', now(), now(), true from generate_series(1, 20000) i`,
    );
    await pool.query("analyze sessions");
  });
  afterAll(async () => {
    await pool?.end();
    await database?.dispose();
  });

  it("deletes a batch of expired sessions through sessions_pkey, without a sequential scan of the table", async () => {
    const db = drizzle({ client: pool });
    const expired = lte(sessions.expiresAt, new Date());
    const batch = db.select({ id: sessions.id }).from(sessions).where(expired).limit(100);
    const query = db.delete(sessions).where(inBatch(sessions.id, batch)).toSQL();
    const explained = await pool.query(`explain (format json) ${query.sql}`, query.params as unknown[]);
    const plan = (explained.rows[0] as { "QUERY PLAN": Array<{ Plan: PlanNode }> })["QUERY PLAN"][0]!.Plan;
    // The delete's own input (its outer child; the InitPlan selecting the ids is the other) reads by the key.
    const outer = plan.Plans?.find((n) => n["Parent Relationship"] === "Outer");
    expect(plan["Node Type"]).toBe("ModifyTable");
    const input = outer ? nodes(outer) : [];
    // An index scan, or a bitmap scan of the index: either way through the key, and no pass over the table.
    expect(input.some((n) => n["Index Name"] === "sessions_pkey")).toBe(true);
    expect(input.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);
    // And the statement does what it says: 100 rows.
    expect((await db.delete(sessions).where(inBatch(sessions.id, batch))).rowCount).toBe(100);
  });
});
