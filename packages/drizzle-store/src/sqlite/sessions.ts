import type { SessionStore } from "@latchkey/core";
import { and, desc, eq, getTableColumns, inArray, lte, ne, or, sql } from "drizzle-orm";
import { boundPlaceholder, rowPlaceholders } from "../bound-placeholder.ts";
import { isForeignKeyViolation } from "./errors.ts";
import { changedRows, type SqliteDatabase } from "./database.ts";
import { readThrough, type FileReads } from "./read-through.ts";
import { sessions, users } from "./schema.ts";

// The same condition on the client and on the read connection (see file-reads.ts); drizzle maps both rows alike.
const tokenHashIs = eq(sessions.tokenHash, sql.placeholder("tokenHash"));
const sessionWithUser = { session: sessions, user: users };

/** `SessionStore` over SQLite/libSQL. */
export function sessionsPort(db: SqliteDatabase, reads: FileReads | null = null): SessionStore {
  // Every authenticated request reads a session and many extend it: both statements are built once.
  const byTokenHash = db
    .select(sessionWithUser)
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(tokenHashIs)
    .limit(1)
    .prepare();
  const readByTokenHash = readThrough(
    reads,
    (rdb) =>
      rdb
        .select(sessionWithUser)
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(tokenHashIs)
        .limit(1)
        .prepare(),
    (values) => byTokenHash.all(values),
  );
  const touch = db
    .update(sessions)
    .set({
      expiresAt: boundPlaceholder("expiresAt", sessions.expiresAt),
      updatedAt: boundPlaceholder("updatedAt", sessions.updatedAt),
    })
    .where(eq(sessions.id, sql.placeholder("id")))
    .prepare();
  // Every sign-in inserts one, only while its user exists and is not banned at the session's creation: one statement,
  // so a ban (its flag written, then the user's sessions deleted) either comes before it and is seen, or after it
  // and deletes the session (SQLite runs one writer at a time).
  const values = rowPlaceholders(sessions);
  const selected = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, value.as(key)])) as {
    [K in keyof typeof values]: ReturnType<(typeof values)[K]["as"]>;
  };
  const insert = db
    .insert(sessions)
    .select(
      db
        .select(selected)
        .from(users)
        .where(and(eq(users.id, values.userId), or(eq(users.banned, false), lte(users.banExpires, values.createdAt)))),
    )
    .prepare();
  const keys = Object.keys(getTableColumns(sessions));
  return {
    async create(session) {
      try {
        const bound: Record<string, unknown> = { ...session };
        for (const key of keys) if (bound[key] === undefined) bound[key] = null;
        return changedRows(await insert.run(bound)) === 1;
      } catch (error) {
        // The user is gone (deleted by a concurrent request): the foreign key refused the row.
        if (isForeignKeyViolation(error)) return false;
        throw error;
      }
    },
    async findByTokenHash(tokenHash) {
      return (await readByTokenHash({ tokenHash }))[0] ?? null;
    },
    async listByUser(userId) {
      return db
        .select()
        .from(sessions)
        .where(eq(sessions.userId, userId))
        .orderBy(desc(sessions.createdAt), desc(sessions.id));
    },
    async touch(id, expiresAt, updatedAt) {
      await touch.run({ id, expiresAt, updatedAt });
    },
    async delete(id) {
      return changedRows(await db.delete(sessions).where(eq(sessions.id, id))) > 0;
    },
    async deleteByUser(userId, exceptId) {
      const except = exceptId === undefined ? undefined : ne(sessions.id, exceptId);
      return changedRows(await db.delete(sessions).where(and(eq(sessions.userId, userId), except)));
    },
    async deleteImpersonatedBy(adminId) {
      return db
        .delete(sessions)
        .where(eq(sessions.impersonatedBy, adminId))
        .returning({ id: sessions.id, userId: sessions.userId });
    },
    async deleteExpired(now, limit) {
      const expired = lte(sessions.expiresAt, now);
      if (limit === undefined) return changedRows(await db.delete(sessions).where(expired));
      const batch = db.select({ id: sessions.id }).from(sessions).where(expired).limit(limit);
      return changedRows(await db.delete(sessions).where(inArray(sessions.id, batch)));
    },
  };
}
