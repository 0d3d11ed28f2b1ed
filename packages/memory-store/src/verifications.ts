import type { VerificationStore } from "@latchkey/core";
import { copy, type MemoryDatabase } from "./database.ts";

/** `VerificationStore` in memory: one record per identifier. */
export function verificationsPort(db: MemoryDatabase): VerificationStore {
  const { verifications } = db;
  return {
    async issue(record) {
      for (const v of [...verifications.values()]) if (v.identifier === record.identifier) verifications.delete(v.id);
      verifications.set(record.id, copy(record));
    },
    async findByIdentifier(identifier) {
      const v = [...verifications.values()].find((r) => r.identifier === identifier);
      return v ? copy(v) : null;
    },
    async findByValueHash(valueHash) {
      const v = [...verifications.values()].find((r) => r.valueHash === valueHash);
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
      for (const v of [...verifications.values()]) if (v.identifier === identifier && verifications.delete(v.id)) n++;
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
