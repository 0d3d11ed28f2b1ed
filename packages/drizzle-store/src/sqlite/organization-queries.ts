import { and, eq, sql, type SQL } from "drizzle-orm";
import type { SqliteDatabase } from "./database.ts";
import { members as m, type organizations as o, type users } from "./schema.ts";

// The reads and conditions that the organization, member and invitation writes share.

export const OWNER = "owner";

/** Another owner of the organization than `userId`, as a condition on the row being written. */
export const otherOwner = (organizationId: string, userId: string) =>
  sql`exists (select 1 from ${m} as others where others.organization_id = ${organizationId} and others.role = ${OWNER} and others.user_id <> ${userId})`;

export const memberOf = async (db: SqliteDatabase, organizationId: string, userId: string) =>
  (
    await db
      .select()
      .from(m)
      .where(and(eq(m.organizationId, organizationId), eq(m.userId, userId)))
      .limit(1)
  )[0] ?? null;
export const exists = async (db: SqliteDatabase, table: typeof o | typeof users, id: string) =>
  (await db.select({ id: table.id }).from(table).where(eq(table.id, id)).limit(1)).length > 0;
/** Fewer than `limit` members (no limit: always true), as a condition of the statement that adds one. */
export const underLimit = (organizationId: SQL | string, limit: number | null): SQL =>
  limit === null ? sql`1` : sql`(select count(*) from ${m} where ${m.organizationId} = ${organizationId}) < ${limit}`;
