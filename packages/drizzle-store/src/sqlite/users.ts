import type { UniqueResult, UserPatch, UserRecord, UserSearch, UserStore } from "@latchkey/core";
import { decodeUserCursor, userPage } from "@latchkey/core/internal";
import { and, asc, count, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import { membershipDeletes } from "./organizations.ts";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { SqliteDatabase } from "./database.ts";
import { bindsWhole, rowPlaceholders } from "../bound-placeholder.ts";
import { userConflictOf } from "./errors.ts";
import { oneRowOf, readThrough, type FileReads } from "./read-through.ts";
import { accounts, apiKeys, passkeys, sessions, twoFactor, users, verifications } from "./schema.ts";

// Drizzle drops undefined keys from SET; a patch with nothing left would be an invalid UPDATE.
const hasFields = (patch: object) => Object.values(patch).some((v) => v !== undefined);

// Several rows that change together go in one `batch`: one write transaction (BEGIN IMMEDIATE, see
// withWriteBatches) on the server (libsql://) or run synchronously on one connection (file:), so nothing
// interleaves and a failure rolls back all of it. No interactive transaction is used.

// The same condition on the client and on the read connection (see file-reads.ts); drizzle maps both rows alike.
const emailIs = eq(users.email, sql.placeholder("value"));

/**
 * `UserStore` over SQLite/libSQL: uniqueness by unique indexes, create and delete as atomic batches. `inTransaction`:
 * `db` runs inside an open write transaction (the ports `Store.transaction` hands its body), which already makes
 * a user and its accounts commit together, so create runs its prepared statements one after the other there.
 */
export function usersPort(db: SqliteDatabase, reads: FileReads | null = null, inTransaction = false): UserStore {
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
  const findById = async (id: string) => (await byId.get({ value: id })) ?? null;
  const readByEmail = readThrough(
    reads,
    (rdb) => rdb.select().from(users).where(emailIs).limit(1).prepare(),
    oneRowOf(byEmail),
  );
  const insertBound = db.insert(users).values(rowPlaceholders(users)).returning().prepare();
  const insertAccountBound = db.insert(accounts).values(rowPlaceholders(accounts)).prepare();
  const mapConflict = (error: unknown): UniqueResult<UserRecord> => {
    const conflict = userConflictOf(error);
    if (conflict === null) throw error;
    return { ok: false, conflict };
  };
  return {
    async create(user, userAccounts) {
      if (inTransaction && bindsWhole(users, user) && userAccounts.every((a) => bindsWhole(accounts, a))) {
        try {
          const row = await insertBound.get(user);
          for (const account of userAccounts) await insertAccountBound.run(account);
          return { ok: true, value: row! };
        } catch (error) {
          return mapConflict(error);
        }
      }
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
        // Organizations first: the ones only this user owned go whole, then the user's memberships.
        ...membershipDeletes(db, id),
        db.delete(sessions).where(eq(sessions.userId, id)),
        db.delete(accounts).where(eq(accounts.userId, id)),
        db.delete(apiKeys).where(eq(apiKeys.userId, id)),
        db.delete(verifications).where(eq(verifications.userId, id)),
        db.delete(twoFactor).where(eq(twoFactor.userId, id)),
        db.delete(passkeys).where(eq(passkeys.userId, id)),
        db.delete(users).where(eq(users.id, id)).returning({ id: users.id }),
      ]);
      return (results[results.length - 1] as unknown[]).length > 0;
    },
    async listUnverifiedBefore(before, limit) {
      return db
        .select()
        .from(users)
        .where(and(eq(users.emailVerified, false), lt(users.createdAt, before)))
        .orderBy(asc(users.createdAt))
        .limit(limit);
    },
    ...listing(db),
  };
}

/** The admin list's reads (`listPage`, `count`). */
function listing(db: SqliteDatabase): Pick<UserStore, "listPage" | "count"> {
  return {
    async listPage({ search, limit, cursor }) {
      const after = cursor === null ? null : decodeUserCursor(cursor, search);
      if (cursor !== null && after === null) return { items: [], nextCursor: null };
      let rows: UserRecord[];
      if (search === null) {
        const older = after && sql`(${users.createdAt}, ${users.id}) < (${Number(after.key)}, ${after.id})`;
        rows = await db
          .select()
          .from(users)
          .where(older ?? undefined)
          .orderBy(desc(users.createdAt), desc(users.id))
          .limit(limit + 1);
      } else {
        const key = searchKey(search);
        const later = after && sql`(${key}, ${users.id}) > (${after.key}, ${after.id})`;
        rows = await db
          .select()
          .from(users)
          .where(and(prefixRange(search), later ?? undefined))
          .orderBy(key, asc(users.id))
          .limit(limit + 1);
      }
      return userPage(rows, limit, search);
    },
    async count(search, atMost) {
      const where = search === null ? undefined : prefixRange(search);
      if (atMost === undefined) {
        const [row] = await db.select({ n: count() }).from(users).where(where);
        return row?.n ?? 0;
      }
      // Counted no further than `atMost`: the scan stops at the limit (decision 0082).
      const capped = db
        .select({ one: sql`1`.as("one") })
        .from(users)
        .where(where)
        .limit(atMost)
        .as("capped");
      const [row] = await db.select({ n: count() }).from(capped);
      return row?.n ?? 0;
    },
  };
}

/** The sort key of a search (binary collation, UTF-8 byte order): the unique email index, or `users_name_lower_idx`. */
const searchKey = (search: UserSearch): SQL =>
  search.field === "email" ? sql`${users.email}` : sql`lower(${users.name})`;

/** The keys that start with the prefix: a range of the index, `[prefix, prefix + U+10FFFF)`. */
const prefixRange = (search: UserSearch): SQL => {
  const key = searchKey(search);
  return sql`${key} >= ${search.prefix} and ${key} < ${`${search.prefix}\u{10FFFF}`}`;
};
