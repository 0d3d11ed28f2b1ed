import type { JwkStore } from "@latchkey/core";
import { copy, type MemoryDatabase } from "./database.ts";

/** `JwkStore` in memory: one key per generation. */
export function jwksPort(db: MemoryDatabase): JwkStore {
  const { jwks } = db;
  return {
    async list() {
      return [...jwks.values()].sort((a, b) => a.generation - b.generation).map(copy);
    },
    async insert(record) {
      for (const k of jwks.values()) if (k.generation === record.generation) return false;
      jwks.set(record.id, copy(record));
      return true;
    },
    async retireOthers(exceptId, at) {
      const kept = jwks.get(exceptId);
      if (!kept) return;
      for (const k of [...jwks.values()])
        if (k.generation < kept.generation && k.retiredAt === null) jwks.set(k.id, { ...k, retiredAt: new Date(at) });
    },
    async deleteRetiredBefore(before) {
      let n = 0;
      for (const k of [...jwks.values()]) if (k.retiredAt !== null && k.retiredAt < before && jwks.delete(k.id)) n++;
      return n;
    },
  };
}
