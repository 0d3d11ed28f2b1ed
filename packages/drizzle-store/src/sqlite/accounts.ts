import type { AccountStore } from "@latchkey/core";
import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import { bindsWhole, rowPlaceholders } from "../bound-placeholder.ts";
import { changedRows, type SqliteDatabase } from "./database.ts";
import { accounts } from "./schema.ts";

const isCredential = sql`provider_id = 'credential'`;

/** `AccountStore` over SQLite/libSQL: password writes are single upserts on the one-credential-per-user index. */
export function accountsPort(db: SqliteDatabase): AccountStore {
  const insert = db.insert(accounts).values(rowPlaceholders(accounts)).prepare();
  return {
    async listByUser(userId) {
      return db
        .select()
        .from(accounts)
        .where(eq(accounts.userId, userId))
        .orderBy(asc(accounts.createdAt), asc(accounts.id));
    },
    async create(account) {
      if (bindsWhole(accounts, account)) await insert.run(account);
      else await db.insert(accounts).values(account);
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
