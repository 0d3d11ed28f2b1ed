import type { AuditStore } from "@latchkey/core";
import { and, desc, eq, lt, or } from "drizzle-orm";
import { inBatch } from "./batch.ts";
import { decodeCursor, toPage } from "../keyset-cursor.ts";
import { changedRows, type PgDatabase } from "./database.ts";
import { auditEvents } from "./schema.ts";

/** `AuditStore` over PostgreSQL: append-only, newest first by (at, id). */
export function auditPort(db: PgDatabase): AuditStore {
  const a = auditEvents;
  return {
    async append(record) {
      await db.insert(a).values(record);
    },
    async list({ userId, limit, cursor }) {
      const after = cursor === null ? null : decodeCursor(cursor);
      if (cursor !== null && after === null) return { items: [], nextCursor: null };
      const older = after && or(lt(a.at, after.at), and(eq(a.at, after.at), lt(a.id, after.id)));
      const rows = await db
        .select()
        .from(a)
        .where(and(userId === null ? undefined : eq(a.userId, userId), older ?? undefined))
        .orderBy(desc(a.at), desc(a.id))
        .limit(limit + 1);
      return toPage(rows, limit, (row) => ({ at: row.at, id: row.id }));
    },
    async deleteBefore(before, limit) {
      const old = lt(a.at, before);
      if (limit === undefined) return changedRows(await db.delete(a).where(old));
      const batch = db.select({ id: a.id }).from(a).where(old).limit(limit);
      return changedRows(await db.delete(a).where(inBatch(a.id, batch)));
    },
  };
}
