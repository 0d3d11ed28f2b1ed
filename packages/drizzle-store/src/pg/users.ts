import type { AccountStore, SessionStore, UniqueResult, UserPatch, UserRecord, UserStore } from "@latchkey/core";
import { and, asc, eq, isNull, lte, ne, sql, type SQL } from "drizzle-orm";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { userConflictOf } from "./errors.ts";
import { accounts, sessions, users, verifications } from "./schema.ts";

/** The database handle every PostgreSQL port implementation shares. */
export type PgDatabase = PostgresJsDatabase;

// Drizzle drops undefined keys from SET; a patch with nothing left would be an invalid UPDATE.
const hasFields = (patch: object) => Object.values(patch).some((v) => v !== undefined);

/** `UserStore` over PostgreSQL: uniqueness by unique indexes, create and delete in transactions. */
export function pgUserStore(db: PgDatabase): UserStore {
  const findOne = async (where: SQL) => (await db.select().from(users).where(where).limit(1))[0] ?? null;
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
    findById: (id) => findOne(eq(users.id, id)),
    findByEmail: (email) => findOne(eq(users.email, email)),
    findByUsername: (username) => findOne(eq(users.username, username)),
    async update(id, patch: UserPatch) {
      if (!hasFields(patch)) {
        const current = await findOne(eq(users.id, id));
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
  return {
    async create(session) {
      await db.insert(sessions).values(session);
    },
    async findByTokenHash(tokenHash) {
      const [row] = await db.select({ session: sessions, user: users }).from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId)).where(eq(sessions.tokenHash, tokenHash)).limit(1);
      return row ?? null;
    },
    async touch(id, expiresAt, updatedAt) {
      await db.update(sessions).set({ expiresAt, updatedAt }).where(eq(sessions.id, id));
    },
    async delete(id) {
      return (await db.delete(sessions).where(eq(sessions.id, id))).count > 0;
    },
    async deleteByUser(userId, exceptId) {
      const except = exceptId === undefined ? undefined : ne(sessions.id, exceptId);
      return (await db.delete(sessions).where(and(eq(sessions.userId, userId), except))).count;
    },
    async deleteExpired(now) {
      return (await db.delete(sessions).where(lte(sessions.expiresAt, now))).count;
    },
  };
}

const isCredential = sql`provider_id = 'credential'`;

/** `AccountStore` over PostgreSQL: password writes are single upserts on the one-credential-per-user index. */
export function pgAccountStore(db: PgDatabase): AccountStore {
  return {
    async listByUser(userId) {
      return db.select().from(accounts).where(eq(accounts.userId, userId)).orderBy(asc(accounts.createdAt), asc(accounts.id));
    },
    async create(account) {
      await db.insert(accounts).values(account);
    },
    async upsertPassword(userId, account) {
      await db.insert(accounts).values({ ...account, userId }).onConflictDoUpdate({
        target: accounts.userId,
        targetWhere: isCredential,
        set: { passwordHash: account.passwordHash, updatedAt: account.updatedAt },
      });
    },
    async setPasswordIfAbsent(userId, account) {
      const written = await db.insert(accounts).values({ ...account, userId }).onConflictDoUpdate({
        target: accounts.userId,
        targetWhere: isCredential,
        set: { passwordHash: account.passwordHash, updatedAt: account.updatedAt },
        setWhere: isNull(accounts.passwordHash),
      }).returning({ id: accounts.id });
      return written.length > 0;
    },
    async deleteAllExcept(userId, keepProviderId) {
      return (await db.delete(accounts).where(and(eq(accounts.userId, userId), ne(accounts.providerId, keepProviderId)))).count;
    },
  };
}
