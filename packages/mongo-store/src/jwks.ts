import type { JwkStore } from "@latchkey/core";
import type { Collections } from "./database.ts";
import { jwkFromDoc, jwkToDoc } from "./documents.ts";
import { isDuplicateOn } from "./errors.ts";

/** `JwkStore` over MongoDB: the unique generation index decides which racing instance's key wins. */
export function jwksPort(c: Collections): JwkStore {
  return {
    async list() {
      return (await c.jwks.find().sort({ generation: 1 }).toArray()).map(jwkFromDoc);
    },
    async insert(record) {
      try {
        await c.jwks.insertOne(jwkToDoc(record));
        return true;
      } catch (error) {
        // `generation_unique`: another instance created this generation first.
        if (isDuplicateOn(error, "generation")) return false;
        throw error;
      }
    },
    async retireOthers(exceptId, at) {
      // A key's generation never changes, so reading it first leaves no window.
      const kept = await c.jwks.findOne({ _id: { $eq: exceptId } }, { projection: { generation: 1 } });
      if (!kept) return;
      await c.jwks.updateMany({ generation: { $lt: kept.generation }, retiredAt: null }, { $set: { retiredAt: at } });
    },
    async deleteRetiredBefore(before) {
      // `$lt` on a date never matches null, so current keys stay.
      return (await c.jwks.deleteMany({ retiredAt: { $lt: before } })).deletedCount;
    },
  };
}
