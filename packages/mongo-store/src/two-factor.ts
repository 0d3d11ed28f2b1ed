import type { TwoFactorStore } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { twoFactorFromDoc, twoFactorToDoc } from "./documents.ts";
import { isDuplicateOn } from "./errors.ts";

/**
 * `TwoFactorStore` over MongoDB: one document per user (`_id` is the user's id). Every guarded write is one
 * conditional single-document update, which MongoDB applies atomically: of two racing callers with the same step
 * or recovery code exactly one matches.
 */
export function twoFactorPort(c: Collections): TwoFactorStore {
  return {
    async find(userId) {
      const doc = await c.twoFactor.findOne({ _id: { $eq: userId } });
      return doc ? twoFactorFromDoc(doc) : null;
    },
    async savePending(record) {
      // No foreign keys: the user's presence is checked first, and a user delete sweeps dependents after its own
      // delete too, so a record written in between goes with the user.
      if (!(await c.users.findOne({ _id: { $eq: record.userId } }, { projection: { _id: 1 } }))) return false;
      const { _id, ...fields } = twoFactorToDoc({ ...record, enabled: false });
      try {
        // An enabled document does not match, so the upsert tries an insert and the `_id` refuses it.
        await c.twoFactor.updateOne({ _id: { $eq: _id }, enabled: false }, { $set: fields }, { upsert: true });
        return true;
      } catch (error) {
        if (isDuplicateOn(error, "_id")) return false;
        throw error;
      }
    },
    async acceptStep(userId, secret, step, at, options = {}) {
      const enable = options.enable === true;
      const result = await c.twoFactor.updateOne(
        {
          _id: { $eq: userId },
          secret: { $eq: secret },
          enabled: !enable,
          $or: [{ lastStep: null }, { lastStep: { $lt: step } }],
        },
        { $set: { lastStep: step, enabled: true, updatedAt: at } },
      );
      return result.modifiedCount === 1;
    },
    async useRecoveryCode(userId, codeHash, at) {
      const result = await c.twoFactor.updateOne(
        { _id: { $eq: userId }, enabled: true, recoveryCodes: { $eq: codeHash } },
        { $pull: { recoveryCodes: codeHash }, $set: { updatedAt: at } },
      );
      return result.modifiedCount === 1;
    },
    async replaceRecoveryCodes(userId, codeHashes, at) {
      const result = await c.twoFactor.updateOne(
        { _id: { $eq: userId }, enabled: true },
        { $set: { recoveryCodes: [...codeHashes], updatedAt: at } },
      );
      return result.matchedCount === 1;
    },
    async distrustDevices(userId, at) {
      const result = await c.twoFactor.updateOne(
        { _id: { $eq: userId } },
        { $set: { trustedAfter: at, updatedAt: at } },
      );
      return result.matchedCount === 1;
    },
    async delete(userId) {
      return (await c.twoFactor.deleteOne({ _id: { $eq: userId } })).deletedCount === 1;
    },
  };
}
