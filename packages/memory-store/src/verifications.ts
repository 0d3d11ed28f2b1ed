import type { VerificationStore } from "@latchkey/core";
import { copy, type MemoryDatabase } from "./database.ts";

/**
 * `VerificationStore` in memory: one record per identifier. Lookups go through the table's identifier and value-hash
 * indexes; only the sweep walks the table.
 */
export function verificationsPort(db: MemoryDatabase): VerificationStore {
  const { verifications } = db;
  return {
    async issue(record) {
      for (const v of verifications.rowsBy("identifier", record.identifier)) verifications.delete(v.id);
      verifications.set(record.id, copy(record));
    },
    async findByIdentifier(identifier) {
      const v = verifications.firstBy("identifier", identifier);
      return v ? copy(v) : null;
    },
    async findByValueHash(valueHash) {
      const v = verifications.firstBy("valueHash", valueHash);
      return v ? copy(v) : null;
    },
    async consume(id) {
      const v = verifications.get(id);
      if (!v) return null;
      verifications.delete(id);
      return copy(v);
    },
    async recordFailedAttempt(id, maxAttempts) {
      const v = verifications.get(id);
      if (!v) return null;
      const attemptCount = v.attemptCount + 1;
      if (attemptCount >= maxAttempts) {
        verifications.delete(id);
        return { attemptCount, destroyed: true };
      }
      verifications.set(id, { ...v, attemptCount });
      return { attemptCount, destroyed: false };
    },
    async deleteByIdentifier(identifier) {
      let n = 0;
      for (const v of verifications.rowsBy("identifier", identifier)) if (verifications.delete(v.id)) n++;
      return n;
    },
    async deleteExpired(now, limit = Number.POSITIVE_INFINITY) {
      let n = 0;
      for (const v of [...verifications.values()]) {
        if (n >= limit) break;
        if (v.expiresAt <= now && verifications.delete(v.id)) n++;
      }
      return n;
    },
  };
}
