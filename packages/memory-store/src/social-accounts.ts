import type { AccountRecord, SocialAccountStore } from "@latchkey/core";
import { copy, identityKey, type MemoryDatabase } from "./database.ts";

/**
 * `SocialAccountStore` in memory: the accounts table's unique `identity` index finds and guards provider
 * identities; every check and its write happen in one synchronous step.
 */
export function socialAccountsPort(db: MemoryDatabase): SocialAccountStore {
  const { accounts, users } = db;
  return {
    async findByProviderAccount(providerId, accountId) {
      const account = accounts.firstBy("identity", identityKey({ providerId, accountId })!);
      const user = account && users.get(account.userId);
      return account && user ? { account: copy(account), user: copy(user) } : null;
    },
    async link(account) {
      if (!users.has(account.userId)) return "owner-gone";
      const key = identityKey(account);
      if (key === null) throw new TypeError("a linked account needs its accountId");
      if (accounts.firstBy("identity", key)) return "taken";
      accounts.set(account.id, copy(account));
      return "linked";
    },
    async updateTokens(id, tokens) {
      const account = accounts.get(id);
      if (!account) return null;
      const next: AccountRecord = { ...account, ...copy(tokens) };
      accounts.set(id, next);
      return copy(next);
    },
    async unlink(userId, id) {
      const account = accounts.get(id);
      if (!account || account.userId !== userId) return "not-found";
      if (accounts.rowsBy("user", userId).length <= 1) return "last";
      accounts.delete(id);
      return "unlinked";
    },
  };
}
