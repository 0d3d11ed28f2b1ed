import type { AuditStore, JwkStore } from "@latchkey/core";
import { and, asc, desc, eq, isNotNull, isNull, lt, ne, or } from "drizzle-orm";
import { decodeCursor, toPage } from "../keyset-cursor.ts";
import { auditEvents, jwks } from "./schema.ts";
import { changedRows, type SqliteDatabase } from "./database.ts";

/** `JwkStore` over SQLite/libSQL: the unique generation index decides which racing instance's key wins. */
export function sqliteJwkStore(db: SqliteDatabase): JwkStore {
  return {
    async list() {
      return db.select().from(jwks).orderBy(asc(jwks.generation));
    },
    async insert(record) {
      const inserted = await db
        .insert(jwks)
        .values(record)
        .onConflictDoNothing({ target: jwks.generation })
        .returning({ id: jwks.id });
      return inserted.length > 0;
    },
    async retireOthers(exceptId, at) {
      await db
        .update(jwks)
        .set({ retiredAt: at })
        .where(and(ne(jwks.id, exceptId), isNull(jwks.retiredAt)));
    },
    async deleteRetiredBefore(before) {
      return changedRows(await db.delete(jwks).where(and(isNotNull(jwks.retiredAt), lt(jwks.retiredAt, before))));
    },
  };
}

/** `AuditStore` over SQLite/libSQL: append-only, newest first by (at, id). */
export function sqliteAuditStore(db: SqliteDatabase): AuditStore {
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
  };
}
