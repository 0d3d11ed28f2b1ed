import type { SessionStore } from "@latchkey/core";
import { and, desc, eq, lte, ne, sql } from "drizzle-orm";
import { inBatch } from "./batch.ts";
import { bindsWhole, boundPlaceholder, rowPlaceholders } from "../bound-placeholder.ts";
import { isForeignKeyViolation } from "./errors.ts";
import { changedRows, type PgDatabase } from "./database.ts";
import { sessions, users } from "./schema.ts";

/** `SessionStore` over PostgreSQL. */
export function sessionsPort(db: PgDatabase): SessionStore {
  // Every authenticated request reads a session and many extend it: both statements are built once.
  const byTokenHash = db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.tokenHash, sql.placeholder("tokenHash")))
    .limit(1)
    .prepare("sessions_by_token_hash");
  const touch = db
    .update(sessions)
    .set({
      expiresAt: boundPlaceholder("expiresAt", sessions.expiresAt),
      updatedAt: boundPlaceholder("updatedAt", sessions.updatedAt),
    })
    .where(eq(sessions.id, sql.placeholder("id")))
    .prepare("sessions_touch");
  // Every sign-in inserts one.
  const insert = db.insert(sessions).values(rowPlaceholders(sessions)).prepare("sessions_insert");
  return {
    async create(session) {
      try {
        if (bindsWhole(sessions, session)) await insert.execute(session);
        else await db.insert(sessions).values(session);
        return true;
      } catch (error) {
        // The user is gone (deleted by a concurrent request): the foreign key refused the row.
        if (isForeignKeyViolation(error)) return false;
        throw error;
      }
    },
    async findByTokenHash(tokenHash) {
      return (await byTokenHash.execute({ tokenHash }))[0] ?? null;
    },
    async listByUser(userId) {
      return db
        .select()
        .from(sessions)
        .where(eq(sessions.userId, userId))
        .orderBy(desc(sessions.createdAt), desc(sessions.id));
    },
    async touch(id, expiresAt, updatedAt) {
      await touch.execute({ id, expiresAt, updatedAt });
    },
    async delete(id) {
      return changedRows(await db.delete(sessions).where(eq(sessions.id, id))) > 0;
    },
    async deleteByUser(userId, exceptId) {
      const except = exceptId === undefined ? undefined : ne(sessions.id, exceptId);
      return changedRows(await db.delete(sessions).where(and(eq(sessions.userId, userId), except)));
    },
    async deleteExpired(now, limit) {
      const expired = lte(sessions.expiresAt, now);
      if (limit === undefined) return changedRows(await db.delete(sessions).where(expired));
      const batch = db.select({ id: sessions.id }).from(sessions).where(expired).limit(limit);
      // The condition is repeated: a session that slid while this delete waited on its row lock stays.
      return changedRows(await db.delete(sessions).where(and(inBatch(sessions.id, batch), expired)));
    },
  };
}
