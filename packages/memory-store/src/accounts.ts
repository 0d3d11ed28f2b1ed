import type { AccountStore } from "@latchkey/core";
import { copy, type MemoryDatabase } from "./database.ts";

/** `AccountStore` in memory: at most one credential account per user. */
export function accountsPort(db: MemoryDatabase): AccountStore {
  const { accounts } = db;
  return {
    async listByUser(userId) {
      return [...accounts.values()].filter((a) => a.userId === userId).map(copy);
    },
    async create(account) {
      accounts.set(account.id, copy(account));
    },
    async upsertPassword(userId, account) {
      const existing = [...accounts.values()].find((a) => a.userId === userId && a.providerId === "credential");
      if (existing)
        accounts.set(existing.id, {
          ...existing,
          passwordHash: account.passwordHash,
          updatedAt: new Date(account.updatedAt),
        });
      else accounts.set(account.id, copy(account));
    },
    async setPasswordIfAbsent(userId, account) {
      const existing = [...accounts.values()].find((a) => a.userId === userId && a.providerId === "credential");
      if (existing?.passwordHash) return false;
      if (existing)
        accounts.set(existing.id, {
          ...existing,
          passwordHash: account.passwordHash,
          updatedAt: new Date(account.updatedAt),
        });
      else accounts.set(account.id, copy(account));
      return true;
    },
    async deleteAllExcept(userId, keepProviderId) {
      let n = 0;
      for (const a of [...accounts.values()])
        if (a.userId === userId && a.providerId !== keepProviderId && accounts.delete(a.id)) n++;
      return n;
    },
  };
}
