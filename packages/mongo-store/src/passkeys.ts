import type { PasskeyStore } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { passkeyFromDoc, passkeyToDoc } from "./documents.ts";
import { isDuplicateOn } from "./errors.ts";

/**
 * `PasskeyStore` over MongoDB. The unique index `credentialId_unique` decides registrations; the counter advances
 * by one conditional single-document update (atomic: of two uses that read the same counter one matches). Without a
 * foreign key or a lock, the owner is checked after the insert, and a delete checks what is left after it: when the
 * user has no account and no passkey left it puts the passkey back and answers `"last"`. Two concurrent deletes of
 * a user's only two passkeys may then both answer `"last"` (both stay), never leave the user without one.
 */
export function passkeysPort(c: Collections): PasskeyStore {
  const ownerExists = async (userId: string) =>
    (await c.users.countDocuments({ _id: { $eq: userId } }, { limit: 1 })) > 0;
  return {
    async insert(record) {
      if (!(await ownerExists(record.userId))) return "owner-gone";
      try {
        await c.passkeys.insertOne(passkeyToDoc(record));
      } catch (error) {
        if (isDuplicateOn(error, "credentialId")) return "taken";
        throw error;
      }
      // The owner may have been deleted between the check and the insert: take the row back.
      if (!(await ownerExists(record.userId))) {
        await c.passkeys.deleteOne({ _id: { $eq: record.id } });
        return "owner-gone";
      }
      return "inserted";
    },
    async listByUser(userId) {
      const docs = await c.passkeys
        .find({ userId: { $eq: userId } })
        .sort({ createdAt: 1, _id: 1 })
        .toArray();
      return docs.map(passkeyFromDoc);
    },
    async findByCredentialId(credentialId) {
      const doc = await c.passkeys.findOne({ credentialId: { $eq: credentialId } });
      return doc ? passkeyFromDoc(doc) : null;
    },
    async rename(userId, id, name) {
      const doc = await c.passkeys.findOneAndUpdate(
        { _id: { $eq: id }, userId: { $eq: userId } },
        { $set: { name } },
        { returnDocument: "after" },
      );
      return doc ? passkeyFromDoc(doc) : null;
    },
    async recordUse(id, expected, next, backedUp, at) {
      const result = await c.passkeys.updateOne(
        { _id: { $eq: id }, counter: { $eq: expected } },
        { $set: { counter: next, backedUp, lastUsedAt: at } },
      );
      return result.matchedCount === 1;
    },
    async delete(userId, id, options) {
      const doc = await c.passkeys.findOneAndDelete({ _id: { $eq: id }, userId: { $eq: userId } });
      if (!doc) return "not-found";
      if (options?.evenLast) return "deleted";
      const left =
        (await c.passkeys.countDocuments({ userId: { $eq: userId } }, { limit: 1 })) +
        (await c.accounts.countDocuments({ userId: { $eq: userId } }, { limit: 1 }));
      if (left > 0) return "deleted";
      await c.passkeys.insertOne(doc);
      return "last";
    },
    async deleteAllByUser(userId) {
      // One document at a time, each delete atomic and naming what it removed: a passkey inserted while this runs
      // is either deleted and named here or inserted after (deleteMany would remove it without naming it).
      const ids: string[] = [];
      for (;;) {
        const gone = await c.passkeys.findOneAndDelete({ userId: { $eq: userId } }, { projection: { _id: 1 } });
        if (!gone) return ids;
        ids.push(gone._id);
      }
    },
  };
}
