import type { AuditStore } from "@latchkey/core";
import { copy, type MemoryDatabase } from "./database.ts";
import { orderKey, page } from "./keyset.ts";

/** `AuditStore` in memory: append-only, newest first by (at, id). */
export function auditPort(db: MemoryDatabase): AuditStore {
  const { audit } = db;
  return {
    async append(record) {
      audit.push(copy(record));
    },
    async list({ userId, limit, cursor }) {
      const rows = audit.filter((r) => userId === null || r.userId === userId);
      rows.sort((a, b) => (orderKey(b.at, b.id) < orderKey(a.at, a.id) ? -1 : 1));
      return page(rows, limit, cursor, (r) => orderKey(r.at, r.id));
    },
    async deleteBefore(before, limit = Number.POSITIVE_INFINITY) {
      // In place (the array is shared with the store): keep every row not old enough, or past the limit.
      let removed = 0;
      let kept = 0;
      for (const row of audit) {
        if (removed < limit && row.at < before) removed++;
        else audit[kept++] = row;
      }
      audit.length = kept;
      return removed;
    },
  };
}
