import type { AccountRecord, UniqueResult, UserPatch, UserRecord, UserSearch, UserStore } from "@latchkey/core";
import { decodeUserCursor, userPage } from "@latchkey/core/internal";
import { and, asc, count, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import { deleteSoleOwnedOrganizations } from "./organizations.ts";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { PgDatabase } from "./database.ts";
import { bindsWhole, rowPlaceholders } from "../bound-placeholder.ts";
import { userConflictOf } from "./errors.ts";
import { accounts, users, verifications } from "./schema.ts";
import { insertUserWithAccount } from "./user-insert.ts";

// Drizzle drops undefined keys from SET; a patch with nothing left would be an invalid UPDATE.
const hasFields = (patch: object) => Object.values(patch).some((v) => v !== undefined);

/**
 * `UserStore` over PostgreSQL: uniqueness by unique indexes, create and delete in transactions. `inTransaction`:
 * `db` is a transaction's (the ports `Store.transaction` hands its body), bound to one connection, where statements
 * prepared on `db` also run inside create's own savepoint; over the pool they would run on another connection.
 */
export function usersPort(db: PgDatabase, inTransaction = false): UserStore {
  // The lookups every sign-in and session read make: built once, bound per call.
  const byField = (column: PgColumn, name: string) =>
    db
      .select()
      .from(users)
      .where(eq(column, sql.placeholder("value")))
      .limit(1)
      .prepare(name);
  const byId = byField(users.id, "users_by_id");
  const byEmail = byField(users.email, "users_by_email");
  const byUsername = byField(users.username, "users_by_username");
  const findById = async (id: string) => (await byId.execute({ value: id }))[0] ?? null;
  // Every sign-up inserts a user and its first account (on the transaction's connection: prepared there once).
  const insertBound = db.insert(users).values(rowPlaceholders(users)).returning().prepare("users_insert");
  const insertAccountBound = db.insert(accounts).values(rowPlaceholders(accounts)).prepare("users_insert_account");
  // A sign-up with one account (every built-in flow): one statement, in a transaction or not.
  const insertWithAccount = insertUserWithAccount(db);
  // Which unique index refused the user, read after the one-statement insert did nothing (in the caller's
  // transaction, the row it collided with is visible: READ COMMITTED reads what committed before each statement).
  const takenField = async (user: UserRecord): Promise<"email" | "username" | null> => {
    if ((await byEmail.execute({ value: user.email })).length > 0) return "email";
    if (user.username !== null && (await byUsername.execute({ value: user.username })).length > 0) return "username";
    return null;
  };
  const bound = (user: UserRecord, userAccounts: readonly AccountRecord[]) =>
    inTransaction && bindsWhole(users, user) && userAccounts.every((a) => bindsWhole(accounts, a));
  const values = (record: UserRecord | AccountRecord) => record as unknown as Record<string, unknown>;
  const mapConflict = (error: unknown): UniqueResult<UserRecord> => {
    const conflict = userConflictOf(error);
    if (conflict === null) throw error;
    return { ok: false, conflict };
  };
  return {
    async create(user, userAccounts) {
      const [account] = userAccounts;
      if (userAccounts.length === 1 && account && bindsWhole(users, user) && bindsWhole(accounts, account)) {
        const row = await insertWithAccount(user, account);
        if (row !== null) return { ok: true, value: row };
        const conflict = await takenField(user);
        if (conflict !== null) return { ok: false, conflict };
        // Neither is taken now (the primary key collided, or the other row went meanwhile): the statement-by-
        // statement path below inserts, or names the index it hits, or raises what it hit.
      }
      try {
        const created = await db.transaction(async (tx) => {
          if (bound(user, userAccounts)) {
            // The statements prepared on `db` run on the same connection, inside this (sub)transaction.
            const [row] = await insertBound.execute(values(user));
            for (const account of userAccounts) await insertAccountBound.execute(values(account));
            return row!;
          }
          const [row] = await tx.insert(users).values(user).returning();
          if (userAccounts.length > 0) await tx.insert(accounts).values(userAccounts);
          return row!;
        });
        return { ok: true, value: created };
      } catch (error) {
        return mapConflict(error);
      }
    },
    findById,
    findByEmail: async (email) => (await byEmail.execute({ value: email }))[0] ?? null,
    findByUsername: async (username) => (await byUsername.execute({ value: username }))[0] ?? null,
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
      // Sessions, accounts and API keys go by ON DELETE CASCADE; verifications carry no foreign key.
      // Memberships go by cascade too; the organizations the user was the only owner of go first, with theirs.
      return db.transaction(async (tx) => {
        await deleteSoleOwnedOrganizations(tx, id);
        const gone = await tx.delete(users).where(eq(users.id, id)).returning({ id: users.id });
        if (gone.length === 0) return false;
        await tx.delete(verifications).where(eq(verifications.userId, id));
        return true;
      });
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
function listing(db: PgDatabase): Pick<UserStore, "listPage" | "count"> {
  return {
    async listPage({ search, limit, cursor }) {
      const after = cursor === null ? null : decodeUserCursor(cursor, search);
      if (cursor !== null && after === null) return { items: [], nextCursor: null };
      let rows: UserRecord[];
      if (search === null) {
        const older =
          after &&
          sql`(${users.createdAt}, ${users.id}) < (${new Date(Number(after.key)).toISOString()}::timestamptz, ${after.id})`;
        rows = await db
          .select()
          .from(users)
          .where(older ?? undefined)
          .orderBy(desc(users.createdAt), desc(users.id))
          .limit(limit + 1);
      } else {
        const key = searchKey(search);
        const later = after && sql`(${key}, ${users.id}) > (${after.key} collate "C", ${after.id})`;
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

/** The sort key of a search, in byte order: what the indexes `users_email_c_idx` and `users_name_c_idx` hold. */
const searchKey = (search: UserSearch): SQL =>
  search.field === "email" ? sql`${users.email} collate "C"` : sql`lower(${users.name}) collate "C"`;

/** The keys that start with the prefix: a range of the index, `[prefix, prefix + U+10FFFF)` in byte order. */
const prefixRange = (search: UserSearch): SQL => {
  const key = searchKey(search);
  return sql`${key} >= ${search.prefix} collate "C" and ${key} < ${`${search.prefix}\u{10FFFF}`} collate "C"`;
};
