import type { SocialAccountStore } from "@latchkey/core";
import { and, eq, sql } from "drizzle-orm";
import type { PgDatabase } from "./database.ts";
import { isForeignKeyViolation } from "./errors.ts";
import { accounts, users } from "./schema.ts";

/**
 * `SocialAccountStore` over PostgreSQL: the unique index on `(provider_id, account_id)` decides links, and an unlink
 * locks the owner's row first, so two unlinks of one user count accounts one after the other.
 */
export function socialAccountsPort(db: PgDatabase): SocialAccountStore {
  // One indexed read with the owner joined: an account without its user is no row.
  const byIdentity = db
    .select({ account: accounts, user: users })
    .from(accounts)
    .innerJoin(users, eq(users.id, accounts.userId))
    .where(
      and(eq(accounts.providerId, sql.placeholder("providerId")), eq(accounts.accountId, sql.placeholder("accountId"))),
    )
    .limit(1)
    .prepare("accounts_by_identity");
  return {
    async findByProviderAccount(providerId, accountId) {
      return (await byIdentity.execute({ providerId, accountId }))[0] ?? null;
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
      // The owner's row is locked first: each statement of a read-committed transaction then sees what the other
      // unlink committed before it.
      return db.transaction(async (tx) => {
        const owner = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
        if (owner.length === 0) return "not-found";
        const held = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.userId, userId));
        if (!held.some((row) => row.id === id)) return "not-found";
        if (held.length <= 1) return "last";
        await tx.delete(accounts).where(and(eq(accounts.id, id), eq(accounts.userId, userId)));
        return "unlinked";
      });
    },
  };
}
