import type { SocialAccountStore } from "@latchkey/core";
import { COLLECTION_NAMES, type Collections } from "./database.ts";
import { accountFromDoc, accountToDoc, patchToSet, userFromDoc, type AccountDoc, type UserDoc } from "./documents.ts";
import { duplicateKeyFields } from "./errors.ts";

/** True for a duplicate on `provider_account_unique`: the provider identity is linked already. */
function isIdentityDuplicate(error: unknown): boolean {
  return duplicateKeyFields(error)?.join(",") === "providerId,accountId";
}

/**
 * `SocialAccountStore` over MongoDB. The unique index `provider_account_unique` decides links. Without a foreign
 * key or a lock, the owner is checked after the insert (as `sessions.create` does) and an unlink checks the
 * accounts left after its delete: when none is left it puts the account back and answers `"last"`. Two concurrent
 * unlinks of a user's only two accounts may then both answer `"last"` (both stay), never leave the user without one.
 */
export function socialAccountsPort(c: Collections): SocialAccountStore {
  return {
    async findByProviderAccount(providerId, accountId) {
      // One round trip: the account joined with its owner; an account whose owner is gone joins nothing.
      const [row] = await c.accounts
        .aggregate<AccountDoc & { owner: UserDoc[] }>([
          { $match: { providerId: { $eq: providerId }, accountId: { $eq: accountId } } },
          { $limit: 1 },
          { $lookup: { from: COLLECTION_NAMES.users, localField: "userId", foreignField: "_id", as: "owner" } },
        ])
        .toArray();
      const owner = row?.owner[0];
      if (!row || !owner) return null;
      const { owner: _owner, ...doc } = row;
      return { account: accountFromDoc(doc), user: userFromDoc(owner) };
    },
    async link(account) {
      if (account.accountId === null) throw new TypeError("a linked account needs its accountId");
      if ((await c.users.countDocuments({ _id: { $eq: account.userId } }, { limit: 1 })) === 0) return "owner-gone";
      try {
        await c.accounts.insertOne(accountToDoc(account));
      } catch (error) {
        if (isIdentityDuplicate(error)) return "taken";
        throw error;
      }
      // The owner may have been deleted between the check and the insert: take the row back.
      if ((await c.users.countDocuments({ _id: { $eq: account.userId } }, { limit: 1 })) === 0) {
        await c.accounts.deleteOne({ _id: { $eq: account.id } });
        return "owner-gone";
      }
      return "linked";
    },
    async updateTokens(id, tokens) {
      const doc = await c.accounts.findOneAndUpdate(
        { _id: { $eq: id } },
        { $set: patchToSet(tokens) ?? {} },
        { returnDocument: "after" },
      );
      return doc ? accountFromDoc(doc) : null;
    },
    async unlink(userId, id) {
      const doc = await c.accounts.findOneAndDelete({ _id: { $eq: id }, userId: { $eq: userId } });
      if (!doc) return "not-found";
      if ((await c.accounts.countDocuments({ userId: { $eq: userId } }, { limit: 1 })) > 0) return "unlinked";
      await c.accounts.insertOne(doc);
      return "last";
    },
  };
}
