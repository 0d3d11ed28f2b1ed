import type { AccountRecord, AccountStore } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { accountFromDoc, accountToDoc } from "./documents.ts";
import { duplicateKeyFields } from "./errors.ts";

// One credential account per user is enforced by the partial unique index `credential_per_user_unique`, which
// turns the "set only when absent" check into a single conditional upsert.
const credentialOf = (userId: string) => ({ userId, providerId: "credential" });

/** True for a duplicate on `credential_per_user_unique`, the only duplicate these upserts expect. */
export function isCredentialDuplicate(error: unknown): boolean {
  return duplicateKeyFields(error)?.join(",") === "userId,providerId";
}

const setOnInsert = (account: AccountRecord) => ({ _id: account.id, createdAt: account.createdAt });

/**
 * `AccountStore` over MongoDB: password writes are single conditional upserts on the one-credential-per-user
 * index.
 */
export function accountsPort(c: Collections): AccountStore {
  return {
    async listByUser(userId) {
      const docs = await c.accounts
        .find({ userId: { $eq: userId } })
        .sort({ createdAt: 1, _id: 1 })
        .toArray();
      return docs.map(accountFromDoc);
    },
    async create(account) {
      await c.accounts.insertOne(accountToDoc(account));
    },
    async upsertPassword(userId, account) {
      const write = () =>
        c.accounts.updateOne(
          credentialOf(userId),
          {
            $set: { passwordHash: account.passwordHash, updatedAt: account.updatedAt },
            $setOnInsert: setOnInsert(account),
          },
          { upsert: true },
        );
      try {
        await write();
      } catch (error) {
        // Two first-time upserts raced on the unique index; the loser's retry now finds the row and updates it.
        if (!isCredentialDuplicate(error)) throw error;
        await write();
      }
    },
    async setPasswordIfAbsent(userId, account) {
      // Matches a credential row without a password (then sets it) or none at all (then inserts one). When a row
      // with a password exists the upsert tries to insert a second credential row and the unique index refuses.
      try {
        await c.accounts.updateOne(
          { ...credentialOf(userId), passwordHash: null },
          {
            $set: { passwordHash: account.passwordHash, updatedAt: account.updatedAt },
            $setOnInsert: setOnInsert(account),
          },
          { upsert: true },
        );
        return true;
      } catch (error) {
        if (isCredentialDuplicate(error)) return false;
        throw error;
      }
    },
    async deleteAllExcept(userId, keepProviderId) {
      return (await c.accounts.deleteMany({ userId: { $eq: userId }, providerId: { $ne: keepProviderId } }))
        .deletedCount;
    },
  };
}
