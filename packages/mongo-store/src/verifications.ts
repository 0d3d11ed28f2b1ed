import type { VerificationStore } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { verificationFromDoc, verificationToDoc } from "./documents.ts";
import { isDuplicateOn } from "./errors.ts";
import { deleteMatching, failedAttemptFilters } from "./queries.ts";

// Concurrent issues for one identifier take turns deleting each other's row; a handful of rounds is plenty.
const ISSUE_ROUNDS = 5;

/** `VerificationStore` over MongoDB: one document per identifier (a unique index), consumed by one findOneAndDelete. */
export function verificationsPort(c: Collections): VerificationStore {
  return {
    async issue(record) {
      // The unique `identifier_unique` index guarantees at most one live row per identifier: delete the earlier
      // ones, insert; a concurrent issue that inserted in between makes the insert fail, and we go again, so the
      // issue that completes last is the one that survives.
      const doc = verificationToDoc(record);
      for (let round = 1; ; round++) {
        await c.verifications.deleteMany({ identifier: { $eq: record.identifier }, _id: { $ne: record.id } });
        try {
          await c.verifications.insertOne(doc);
          return;
        } catch (error) {
          if (!isDuplicateOn(error, "identifier") || round >= ISSUE_ROUNDS) throw error;
        }
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
      const doc = await c.verifications.findOneAndDelete({ _id: { $eq: id } });
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
        if ((await c.verifications.countDocuments({ _id: { $eq: id } }, { limit: 1 })) === 0) return null;
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
