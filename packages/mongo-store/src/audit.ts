import type { AuditStore } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { auditFromDoc, auditToDoc } from "./documents.ts";
import { deleteMatching, encodeCursor, keysetFilter } from "./queries.ts";

/** `AuditStore` over MongoDB: append-only, newest first by (at, _id). */
export function auditPort(c: Collections): AuditStore {
  return {
    async append(record) {
      await c.audit.insertOne(auditToDoc(record));
    },
    async list({ userId, limit, cursor }) {
      const after = keysetFilter("at", cursor);
      if (after === null) return { items: [], nextCursor: null };
      const filter = userId === null ? after : { userId: { $eq: userId }, ...after };
      const docs = await c.audit
        .find(filter)
        .sort({ at: -1, _id: -1 })
        .limit(limit + 1)
        .toArray();
      const items = docs.slice(0, limit).map(auditFromDoc);
      const last = items[items.length - 1];
      return { items, nextCursor: docs.length > limit && last ? encodeCursor(last.at, last.id) : null };
    },
    async deleteBefore(before, limit) {
      return deleteMatching(c.audit, { at: { $lt: before } }, limit);
    },
  };
}
