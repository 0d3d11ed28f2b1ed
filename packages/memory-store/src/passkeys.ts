import type { PasskeyRecord, PasskeyStore } from "@latchkey/core";
import { copy, type MemoryDatabase } from "./database.ts";

/**
 * `PasskeyStore` in memory: the passkeys table's unique `credential` index guards credential ids; every check and
 * its write happen in one synchronous step, so the counter's compare-and-set and the last-way check are atomic.
 */
export function passkeysPort(db: MemoryDatabase): PasskeyStore {
  const { passkeys, users, accounts } = db;
  const oldestFirst = (a: PasskeyRecord, b: PasskeyRecord) =>
    a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1);
  return {
    async insert(record) {
      if (!users.has(record.userId)) return "owner-gone";
      if (passkeys.firstBy("credential", record.credentialId)) return "taken";
      passkeys.set(record.id, copy(record));
      return "inserted";
    },
    async listByUser(userId) {
      return passkeys.rowsBy("user", userId).sort(oldestFirst).map(copy);
    },
    async findByCredentialId(credentialId) {
      const row = passkeys.firstBy("credential", credentialId);
      return row ? copy(row) : null;
    },
    async rename(userId, id, name) {
      const row = passkeys.get(id);
      if (!row || row.userId !== userId) return null;
      const next = { ...row, name };
      passkeys.set(id, next);
      return copy(next);
    },
    async recordUse(id, expected, next, backedUp, at) {
      const row = passkeys.get(id);
      if (!row || row.counter !== expected) return false;
      passkeys.set(id, { ...row, counter: next, backedUp, lastUsedAt: new Date(at) });
      return true;
    },
    async delete(userId, id, options) {
      const row = passkeys.get(id);
      if (!row || row.userId !== userId) return "not-found";
      if (
        !options?.evenLast &&
        accounts.rowsBy("user", userId).length === 0 &&
        passkeys.rowsBy("user", userId).length <= 1
      )
        return "last";
      passkeys.delete(id);
      return "deleted";
    },
    async deleteAllByUser(userId) {
      const rows = passkeys.rowsBy("user", userId);
      for (const row of rows) passkeys.delete(row.id);
      return rows.map((row) => row.id);
    },
  };
}
