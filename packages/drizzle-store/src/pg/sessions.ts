import type { SessionRecord, SessionStore } from "@latchkey/core";
import { and, desc, eq, getTableColumns, lte, ne, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { PgDialect, type PgColumn } from "drizzle-orm/pg-core";
import { inBatch } from "./batch.ts";
import { boundPlaceholder, rowPlaceholders } from "../bound-placeholder.ts";
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
  const insert = insertUnlessBanned(db);
  return {
    async create(session) {
      try {
        return (await insert(session)) === 1;
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
      // The condition is repeated: a session that slid while this delete waited on its row lock stays.
      return changedRows(await db.delete(sessions).where(and(inBatch(sessions.id, batch), expired)));
    },
  };
}

const dialect = new PgDialect();

/**
 * The session insert, in one prepared statement that writes the row only while its user exists and is not banned
 * at the session's creation, the user row locked FOR SHARE:
 *
 *   insert into sessions (<columns>) select <bound values> from users
 *   where users.id = <userId> and (not users.banned or users.ban_expires <= <createdAt>) for share of users
 *
 * The share lock conflicts with a ban's UPDATE of the user row: a ban that updated first is seen (the select waits
 * for its commit and reads the new row: no session), one that comes second waits for this transaction, and its
 * delete of the user's sessions, after that, sees this one. Returns how many rows went in (0 or 1).
 */
function insertUnlessBanned(db: PgDatabase): (session: SessionRecord) => Promise<number> {
  const columns = Object.entries(getTableColumns(sessions)) as Array<[keyof SessionRecord & string, PgColumn]>;
  const values = rowPlaceholders(sessions) as Record<string, SQL>;
  const list = (parts: SQLWrapper[]) => sql.join(parts, sql`, `);
  const statement = sql`insert into ${sessions} (${list(columns.map(([, c]) => sql.identifier(c.name)))}) select ${list(
    columns.map(([key, c]) => sql`${values[key] as SQL}::${sql.raw(c.getSQLType())}`),
  )} from ${users} where ${users.id} = ${values.userId as SQL}::text and (not ${users.banned} or ${
    users.banExpires
  } <= ${values.createdAt as SQL}::timestamp(3) with time zone) for share of ${users}`;
  const prepared = db._.session.prepareQuery<{ execute: unknown; all: unknown; values: unknown }>(
    dialect.sqlToQuery(statement),
    undefined,
    "sessions_insert",
    false,
  );
  return async (session) => {
    const bound: Record<string, unknown> = { ...session };
    for (const [key] of columns) if (bound[key] === undefined) bound[key] = null;
    return changedRows(await prepared.execute(bound));
  };
}
