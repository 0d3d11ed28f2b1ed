import type { AccountRecord, AccountStore } from "@latchkey/core";
import { copy, type MemoryDatabase } from "./database.ts";

/** `AccountStore` in memory: at most one credential account per user; a user's accounts come from the table's user index. */
export function accountsPort(db: MemoryDatabase): AccountStore {
  const { accounts } = db;
  const credentialOf = (userId: string) => accounts.rowsBy("user", userId).find((a) => a.providerId === "credential");
  // Sets the password on the user's credential account, or inserts `account` when the user has none.
  const writePassword = (existing: AccountRecord | undefined, account: AccountRecord) => {
    if (existing)
      accounts.set(existing.id, {
        ...existing,
        passwordHash: account.passwordHash,
        updatedAt: new Date(account.updatedAt),
      });
    else accounts.set(account.id, copy(account));
  };
  return {
    async listByUser(userId) {
      return accounts.rowsBy("user", userId).map(copy);
    },
    async create(account) {
      accounts.set(account.id, copy(account));
    },
    async upsertPassword(userId, account) {
      writePassword(credentialOf(userId), account);
    },
    async setPasswordIfAbsent(userId, account) {
      const existing = credentialOf(userId);
      if (existing?.passwordHash) return false;
      writePassword(existing, account);
      return true;
    },
    async deleteAllExcept(userId, keepProviderId) {
      let n = 0;
      for (const a of accounts.rowsBy("user", userId))
        if (a.providerId !== keepProviderId && accounts.delete(a.id)) n++;
      return n;
    },
  };
}
