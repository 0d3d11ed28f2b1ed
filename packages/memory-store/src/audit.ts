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
  };
}
