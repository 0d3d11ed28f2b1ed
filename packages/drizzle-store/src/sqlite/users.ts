import type { AccountStore, SessionStore, UniqueResult, UserPatch, UserRecord, UserStore } from "@latchkey/core";
import { and, asc, eq, isNull, lte, ne, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { boundPlaceholder } from "../bound-placeholder.ts";
import { changedRows, type SqliteDatabase } from "./database.ts";
import { userConflictOf } from "./errors.ts";
import { readThrough, type FileReads } from "./read-through.ts";
import { accounts, apiKeys, sessions, users, verifications } from "./schema.ts";

// Drizzle drops undefined keys from SET; a patch with nothing left would be an invalid UPDATE.
const hasFields = (patch: object) => Object.values(patch).some((v) => v !== undefined);

// Several rows that change together go in one `batch`: one write transaction (BEGIN IMMEDIATE, see
// withWriteBatches) on the server (libsql://) or run synchronously on one connection (file:), so nothing
// interleaves and a failure rolls back all of it. No interactive transaction is used.

// The same condition on the client and on the read connection (see file-reads.ts); drizzle maps both rows alike.
const emailIs = eq(users.email, sql.placeholder("value"));
const tokenHashIs = eq(sessions.tokenHash, sql.placeholder("tokenHash"));
const sessionWithUser = { session: sessions, user: users };

/** `UserStore` over SQLite/libSQL: uniqueness by unique indexes, create and delete as atomic batches. */
export function sqliteUserStore(db: SqliteDatabase, reads: FileReads | null = null): UserStore {
  // The lookups every sign-in and session read make: built once, bound per call.
  const byField = (column: SQLiteColumn) =>
    db
      .select()
      .from(users)
      .where(eq(column, sql.placeholder("value")))
      .limit(1)
      .prepare();
  const byId = byField(users.id);
  const byEmail = db.select().from(users).where(emailIs).limit(1).prepare();
  const byUsername = byField(users.username);
  const findById = async (id: string) => (await byId.all({ value: id }))[0] ?? null;
  const readByEmail = readThrough(
    reads,
    (rdb) => rdb.select().from(users).where(emailIs).limit(1).prepare(),
    (values) => byEmail.all(values),
  );
  const mapConflict = (error: unknown): UniqueResult<UserRecord> => {
    const conflict = userConflictOf(error);
    if (conflict === null) throw error;
    return { ok: false, conflict };
  };
  return {
    async create(user, userAccounts) {
      const insertUser = db.insert(users).values(user).returning();
      try {
        const [[row]] =
          userAccounts.length > 0
            ? await db.batch([insertUser, db.insert(accounts).values(userAccounts)])
            : [await insertUser];
        return { ok: true, value: row! };
      } catch (error) {
        return mapConflict(error);
      }
    },
    findById,
    findByEmail: async (email) => (await readByEmail({ value: email }))[0] ?? null,
    findByUsername: async (username) => (await byUsername.all({ value: username }))[0] ?? null,
    async update(id, patch: UserPatch) {
      if (!hasFields(patch)) {
        const current = await findById(id);
        return current && { ok: true, value: current };
      }
      try {
        const [row] = await db.update(users).set(patch).where(eq(users.id, id)).returning();
        return row ? { ok: true, value: row } : null;
      } catch (error) {
        return mapConflict(error);
      }
    },
    async delete(id) {
      // Explicit deletes: foreign-key enforcement is a per-connection PRAGMA in SQLite, so the cascade is not relied on.
      const results = await db.batch([
        db.delete(sessions).where(eq(sessions.userId, id)),
        db.delete(accounts).where(eq(accounts.userId, id)),
        db.delete(apiKeys).where(eq(apiKeys.userId, id)),
        db.delete(verifications).where(eq(verifications.userId, id)),
        db.delete(users).where(eq(users.id, id)).returning({ id: users.id }),
      ]);
      return results[4].length > 0;
    },
  };
}

/** `SessionStore` over SQLite/libSQL. */
export function sqliteSessionStore(db: SqliteDatabase, reads: FileReads | null = null): SessionStore {
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
  return {
    async create(session) {
      await db.insert(sessions).values(session);
    },
    async findByTokenHash(tokenHash) {
      return (await readByTokenHash({ tokenHash }))[0] ?? null;
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
    async deleteExpired(now) {
      return changedRows(await db.delete(sessions).where(lte(sessions.expiresAt, now)));
    },
  };
}

const isCredential = sql`provider_id = 'credential'`;

/** `AccountStore` over SQLite/libSQL: password writes are single upserts on the one-credential-per-user index. */
export function sqliteAccountStore(db: SqliteDatabase): AccountStore {
  return {
    async listByUser(userId) {
      return db
        .select()
        .from(accounts)
        .where(eq(accounts.userId, userId))
        .orderBy(asc(accounts.createdAt), asc(accounts.id));
    },
    async create(account) {
      await db.insert(accounts).values(account);
    },
    async upsertPassword(userId, account) {
      await db
        .insert(accounts)
        .values({ ...account, userId })
        .onConflictDoUpdate({
          target: accounts.userId,
          targetWhere: isCredential,
          set: { passwordHash: account.passwordHash, updatedAt: account.updatedAt },
        });
    },
    async setPasswordIfAbsent(userId, account) {
      const written = await db
        .insert(accounts)
        .values({ ...account, userId })
        .onConflictDoUpdate({
          target: accounts.userId,
          targetWhere: isCredential,
          set: { passwordHash: account.passwordHash, updatedAt: account.updatedAt },
          setWhere: isNull(accounts.passwordHash),
        })
        .returning({ id: accounts.id });
      return written.length > 0;
    },
    async deleteAllExcept(userId, keepProviderId) {
      return changedRows(
        await db.delete(accounts).where(and(eq(accounts.userId, userId), ne(accounts.providerId, keepProviderId))),
      );
    },
  };
}
