import type { VerificationStore } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { verificationFromDoc, verificationToDoc } from "./documents.ts";
import { isDuplicateOn } from "./errors.ts";
import { deleteMatching, failedAttemptFilters, verificationById, verificationIssueUpsert } from "./queries.ts";

/** `VerificationStore` over MongoDB: one document per identifier (a unique index), consumed by one findOneAndDelete. */
export function verificationsPort(c: Collections): VerificationStore {
  return {
    async issue(record) {
      const { filter, update } = verificationIssueUpsert(verificationToDoc(record));
      try {
        await c.verifications.updateOne(filter, update, { upsert: true });
      } catch (error) {
        // Two first issues for one identifier both tried to insert: the loser's upsert now finds the winner's
        // row and updates it (a server that retries such upserts itself never gets here).
        if (!isDuplicateOn(error, "identifier")) throw error;
        await c.verifications.updateOne(filter, update, { upsert: true });
      }
    },
    async findByIdentifier(identifier) {
      const doc = await c.verifications.findOne({ identifier: { $eq: identifier } });
      return doc ? verificationFromDoc(doc) : null;
    },
    async findByValueHash(valueHash) {
      const doc = await c.verifications.findOne({ valueHash: { $eq: valueHash } });
      return doc ? verificationFromDoc(doc) : null;
    },
    async consume(id) {
      const doc = await c.verifications.findOneAndDelete(verificationById(id));
      return doc ? verificationFromDoc(doc) : null;
    },
    async recordFailedAttempt(id, maxAttempts) {
      const { destroy, increment } = failedAttemptFilters(id, maxAttempts);
      for (;;) {
        const destroyed = await c.verifications.findOneAndDelete(destroy);
        if (destroyed) return { attemptCount: destroyed.attemptCount + 1, destroyed: true };
        const bumped = await c.verifications.findOneAndUpdate(
          increment,
          { $inc: { attemptCount: 1 } },
          { returnDocument: "after" },
        );
        if (bumped) return { attemptCount: bumped.attemptCount, destroyed: false };
        // Neither matched: the row is gone, or another failure moved it to the last attempt between our two
        // writes. Counts only rise, so going round again ends (in the destroy branch or with the row gone).
        if ((await c.verifications.countDocuments(verificationById(id), { limit: 1 })) === 0) return null;
      }
    },
    async deleteByIdentifier(identifier) {
      return (await c.verifications.deleteMany({ identifier: { $eq: identifier } })).deletedCount;
    },
    async deleteExpired(now, limit) {
      return deleteMatching(c.verifications, { expiresAt: { $lte: now } }, limit);
    },
  };
}
