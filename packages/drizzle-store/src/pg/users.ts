import type { AccountStore, SessionStore, UniqueResult, UserPatch, UserRecord, UserStore } from "@latchkey/core";
import { and, asc, eq, isNull, lte, ne, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { PgDatabase as DrizzlePgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { boundPlaceholder } from "../bound-placeholder.ts";
import { userConflictOf } from "./errors.ts";
import { accounts, sessions, users, verifications } from "./schema.ts";

/** The database handle every PostgreSQL port implementation shares (node-postgres or postgres.js, or a transaction). */
export type PgDatabase = DrizzlePgDatabase<PgQueryResultHKT>;

/** Rows a write touched: node-postgres reports `rowCount`, postgres.js `count`. */
export function affected(result: unknown): number {
  const r = result as { rowCount?: number | null; count?: number };
  return r.rowCount ?? r.count ?? 0;
}

// Drizzle drops undefined keys from SET; a patch with nothing left would be an invalid UPDATE.
const hasFields = (patch: object) => Object.values(patch).some((v) => v !== undefined);

/** `UserStore` over PostgreSQL: uniqueness by unique indexes, create and delete in transactions. */
export function pgUserStore(db: PgDatabase): UserStore {
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
  const mapConflict = (error: unknown): UniqueResult<UserRecord> => {
    const conflict = userConflictOf(error);
    if (conflict === null) throw error;
    return { ok: false, conflict };
  };
  return {
    async create(user, userAccounts) {
      try {
        const created = await db.transaction(async (tx) => {
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
      return db.transaction(async (tx) => {
        const gone = await tx.delete(users).where(eq(users.id, id)).returning({ id: users.id });
        if (gone.length === 0) return false;
        await tx.delete(verifications).where(eq(verifications.userId, id));
        return true;
      });
    },
  };
}

/** `SessionStore` over PostgreSQL. */
export function pgSessionStore(db: PgDatabase): SessionStore {
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
  return {
    async create(session) {
      await db.insert(sessions).values(session);
    },
    async findByTokenHash(tokenHash) {
      return (await byTokenHash.execute({ tokenHash }))[0] ?? null;
    },
    async touch(id, expiresAt, updatedAt) {
      await touch.execute({ id, expiresAt, updatedAt });
    },
    async delete(id) {
      return affected(await db.delete(sessions).where(eq(sessions.id, id))) > 0;
    },
    async deleteByUser(userId, exceptId) {
      const except = exceptId === undefined ? undefined : ne(sessions.id, exceptId);
      return affected(await db.delete(sessions).where(and(eq(sessions.userId, userId), except)));
    },
    async deleteExpired(now) {
      return affected(await db.delete(sessions).where(lte(sessions.expiresAt, now)));
    },
  };
}

const isCredential = sql`provider_id = 'credential'`;

/** `AccountStore` over PostgreSQL: password writes are single upserts on the one-credential-per-user index. */
export function pgAccountStore(db: PgDatabase): AccountStore {
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
      return affected(
        await db.delete(accounts).where(and(eq(accounts.userId, userId), ne(accounts.providerId, keepProviderId))),
      );
    },
  };
}
