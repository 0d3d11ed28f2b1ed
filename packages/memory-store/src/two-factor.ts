import type { TwoFactorStore } from "@latchkey/core";
import { copy, type MemoryDatabase } from "./database.ts";

/** `TwoFactorStore` in memory: each method reads and writes in one synchronous step, so every check-and-set is atomic. */
export function twoFactorPort(db: MemoryDatabase): TwoFactorStore {
  const { twoFactor, users } = db;
  return {
    async find(userId) {
      const row = twoFactor.get(userId);
      return row ? copy(row) : null;
    },
    async savePending(record) {
      // What a foreign key does in the SQL stores: no record for a user that is not there.
      if (!users.has(record.userId)) return false;
      if (twoFactor.get(record.userId)?.enabled) return false;
      twoFactor.set(record.userId, copy({ ...record, enabled: false }));
      return true;
    },
    async acceptStep(userId, secret, step, at, options = {}) {
      const row = twoFactor.get(userId);
      const enable = options.enable === true;
      if (!row || row.secret !== secret || row.enabled === enable) return false;
      if (row.lastStep !== null && row.lastStep >= step) return false;
      twoFactor.set(userId, { ...row, lastStep: step, enabled: true, updatedAt: new Date(at) });
      return true;
    },
    async useRecoveryCode(userId, codeHash, at) {
      const row = twoFactor.get(userId);
      if (!row?.enabled || !row.recoveryCodes.includes(codeHash)) return false;
      const recoveryCodes = row.recoveryCodes.filter((hash) => hash !== codeHash);
      twoFactor.set(userId, { ...row, recoveryCodes, updatedAt: new Date(at) });
      return true;
    },
    async replaceRecoveryCodes(userId, codeHashes, at) {
      const row = twoFactor.get(userId);
      if (!row?.enabled) return false;
      twoFactor.set(userId, { ...row, recoveryCodes: [...codeHashes], updatedAt: new Date(at) });
      return true;
    },
    async distrustDevices(userId, at) {
      const row = twoFactor.get(userId);
      if (!row) return false;
      twoFactor.set(userId, { ...row, trustedAfter: new Date(at), updatedAt: new Date(at) });
      return true;
    },
    async delete(userId) {
      return twoFactor.delete(userId);
    },
  };
}
