import type { ApiKeyRecord, ApiKeyStore, ApiKeyUseResult, RevokedApiKey } from "@latchkey/core";
import type { Filter } from "mongodb";
import type { Collections } from "./database.ts";
import { apiKeyFromDoc, apiKeyToDoc, patchToSet, type ApiKeyDoc } from "./documents.ts";
import { apiKeyRefusal, apiKeyUseFilter, apiKeyUseUpdate, encodeCursor, keysetFilter } from "./queries.ts";

// A refused use is explained by reading the key afterwards. If that read finds a key that could be used (it was
// changed between the two steps), the use is tried again; after a few such rounds it is refused as rate-limited.
const USE_ROUNDS = 3;
const SWEEP_BATCH = 100;

const owned = (id: string, userId: string | null): Filter<ApiKeyDoc> =>
  userId === null ? { _id: { $eq: id } } : { _id: { $eq: id }, userId: { $eq: userId } };

/** `ApiKeyStore` over MongoDB; a use is one conditional findOneAndUpdate. */
export function apiKeysPort(c: Collections): ApiKeyStore {
  return {
    async create(key) {
      await c.apiKeys.insertOne(apiKeyToDoc(key));
    },
    async findByHash(keyHash) {
      const doc = await c.apiKeys.findOne({ keyHash: { $eq: keyHash } });
      return doc ? apiKeyFromDoc(doc) : null;
    },
    async findById(id) {
      const doc = await c.apiKeys.findOne({ _id: { $eq: id } });
      return doc ? apiKeyFromDoc(doc) : null;
    },
    async listByUser(userId, { limit, cursor }) {
      const after = keysetFilter("createdAt", cursor);
      if (after === null) return { items: [], nextCursor: null };
      const docs = await c.apiKeys
        .find({ userId: { $eq: userId }, ...after })
        .sort({ createdAt: -1, _id: -1 })
        .limit(limit + 1)
        .toArray();
      const items = docs.slice(0, limit).map(apiKeyFromDoc);
      const last = items[items.length - 1];
      return { items, nextCursor: docs.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
    },
    async update(id, userId, patch) {
      const set = patchToSet(patch);
      const doc =
        set === null
          ? await c.apiKeys.findOne(owned(id, userId))
          : await c.apiKeys.findOneAndUpdate(owned(id, userId), { $set: set }, { returnDocument: "after" });
      return doc ? apiKeyFromDoc(doc) : null;
    },
    async delete(id, userId) {
      const doc = await c.apiKeys.findOneAndDelete(owned(id, userId));
      return doc ? apiKeyFromDoc(doc) : null;
    },
    async deleteExpired(now, userId) {
      const filter: Filter<ApiKeyDoc> =
        userId === null ? { expiresAt: { $lte: now } } : { userId, expiresAt: { $lte: now } };
      const candidates = await c.apiKeys.find(filter, { projection: { _id: 1, userId: 1 } }).toArray();
      const gone: RevokedApiKey[] = [];
      // One conditional delete per key, so a key removed by a concurrent sweep is reported by that sweep only
      // (each deleted key gets exactly one ApiKeyRevoked event). Batched to bound the round trips.
      for (let i = 0; i < candidates.length; i += SWEEP_BATCH) {
        const batch = candidates.slice(i, i + SWEEP_BATCH);
        const deleted = await Promise.all(
          batch.map((k) =>
            c.apiKeys.findOneAndDelete({ _id: k._id, expiresAt: { $lte: now } }, { projection: { _id: 1, userId: 1 } }),
          ),
        );
        for (const d of deleted) if (d) gone.push({ id: d._id, userId: d.userId });
      }
      return gone;
    },
    async consumeUse(id, now): Promise<ApiKeyUseResult> {
      let key: ApiKeyRecord | null = null;
      for (let round = 1; round <= USE_ROUNDS; round++) {
        // The whole decision and the write happen in this one conditional update.
        const used = await c.apiKeys.findOneAndUpdate(apiKeyUseFilter(id, now), apiKeyUseUpdate(now), {
          returnDocument: "after",
        });
        if (used) return { ok: true, key: apiKeyFromDoc(used) };
        const doc = await c.apiKeys.findOne({ _id: { $eq: id } });
        key = doc ? apiKeyFromDoc(doc) : null;
        const reason = apiKeyRefusal(key, now);
        if (reason !== null) return { ok: false, reason, key };
      }
      return { ok: false, reason: "RATE_LIMITED", key };
    },
  };
}
