import type { SocialAccountStore } from "@latchkey/core";
import { and, eq, sql } from "drizzle-orm";
import type { SqliteDatabase } from "./database.ts";
import { isForeignKeyViolation } from "./errors.ts";
import { accounts, users } from "./schema.ts";

/**
 * `SocialAccountStore` over SQLite, libSQL and D1: the unique index on `(provider_id, account_id)` decides links;
 * an unlink is one DELETE whose condition counts the owner's accounts (SQLite runs one writer at a time, and a
 * statement sees every write committed before it).
 */
export function socialAccountsPort(db: SqliteDatabase): SocialAccountStore {
  return {
    async findByProviderAccount(providerId, accountId) {
      const rows = await db
        .select({ account: accounts, user: users })
        .from(accounts)
        .innerJoin(users, eq(users.id, accounts.userId))
        .where(and(eq(accounts.providerId, providerId), eq(accounts.accountId, accountId)))
        .limit(1);
      return rows[0] ?? null;
    },
    async link(account) {
      if (account.accountId === null) throw new TypeError("a linked account needs its accountId");
      try {
        const written = await db.insert(accounts).values(account).onConflictDoNothing().returning({ id: accounts.id });
        return written.length > 0 ? "linked" : "taken";
      } catch (error) {
        // The owner is gone (deleted by a concurrent request): the foreign key refused the row.
        if (isForeignKeyViolation(error)) return "owner-gone";
        throw error;
      }
    },
    async updateTokens(id, tokens) {
      return (await db.update(accounts).set(tokens).where(eq(accounts.id, id)).returning())[0] ?? null;
    },
    async unlink(userId, id) {
      const others = sql`(select count(*) from ${accounts} as others where others.user_id = ${userId} and others.id <> ${id})`;
      const gone = await db
        .delete(accounts)
        .where(and(eq(accounts.id, id), eq(accounts.userId, userId), sql`${others} > 0`))
        .returning({ id: accounts.id });
      if (gone.length > 0) return "unlinked";
      const mine = await db
        .select({ id: accounts.id })
        .from(accounts)
        .where(and(eq(accounts.id, id), eq(accounts.userId, userId)))
        .limit(1);
      return mine.length > 0 ? "last" : "not-found";
    },
  };
}
