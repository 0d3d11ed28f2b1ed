import { apiKeyUseRefusalAt, type ApiKeyRecord, type ApiKeyStore, type ApiKeyUseResult } from "@latchkey/core";
import type { Filter } from "mongodb";
import { COLLECTION_NAMES, type Collections } from "./database.ts";
import { apiKeyFromDoc, apiKeyToDoc, patchToSet, userFromDoc, type ApiKeyDoc, type UserDoc } from "./documents.ts";
import {
  apiKeyHashFilter,
  apiKeyRerollUpdate,
  apiKeyUseFilter,
  apiKeyUseUpdate,
  encodeCursor,
  keysetFilter,
} from "./queries.ts";

// A refused use is explained by reading the key afterwards. If that read finds a key that could be used (it was
// changed between the two steps), the use is tried again; after a few such rounds it is refused as rate-limited.
const USE_ROUNDS = 3;

const owned = (id: string, userId: string | null): Filter<ApiKeyDoc> =>
  userId === null ? { _id: { $eq: id } } : { _id: { $eq: id }, userId: { $eq: userId } };

/** `ApiKeyStore` over MongoDB; a use is one conditional findOneAndUpdate. */
export function apiKeysPort(c: Collections): ApiKeyStore {
  return {
    ...lookups(c),
    ...sweeps(c),
    async create(key, options = {}) {
      await c.apiKeys.insertOne(apiKeyToDoc(key));
      // No foreign keys: written first, the owner checked second. A deletion removes the user first and sweeps its
      // keys after, so either it sees this row or this check sees the owner gone (and takes the row back).
      if ((await c.users.countDocuments({ _id: { $eq: key.userId } }, { limit: 1 })) === 0) {
        await c.apiKeys.deleteOne({ _id: { $eq: key.id } });
        return "owner-gone";
      }
      // An organization's key: the membership is checked second too. The organization's deletion removes its members
      // before its keys, so either it sees this row or this check sees the member gone (and takes the row back).
      const organizationId = key.organizationId ?? null;
      if (
        organizationId !== null &&
        (await c.members.countDocuments(
          { organizationId: { $eq: organizationId }, userId: { $eq: key.userId } },
          { limit: 1 },
        )) === 0
      ) {
        await c.apiKeys.deleteOne({ _id: { $eq: key.id } });
        return "organization-gone";
      }
      const max = options.maxPerUser ?? null;
      if (max === null) return true;
      // Without a multi-document transaction the cap is checked after the insert: a create that finds the owner
      // past the cap takes its own key back. Concurrent creates at the cap may all take theirs back (a refusal
      // the caller can retry), but the owner never keeps more than `max` keys.
      const held = await c.apiKeys.countDocuments({ userId: { $eq: key.userId } }, { limit: max + 1 });
      if (held <= max) return true;
      await c.apiKeys.deleteOne({ _id: { $eq: key.id } });
      return false;
    },
    async update(id, userId, patch, options = {}) {
      const filter: Filter<ApiKeyDoc> = options.unlessLocked
        ? { ...owned(id, userId), locked: { $ne: true } }
        : owned(id, userId);
      const set = patchToSet(patch);
      const doc =
        set === null
          ? await c.apiKeys.findOne(filter)
          : await c.apiKeys.findOneAndUpdate(filter, { $set: set }, { returnDocument: "after" });
      return doc ? apiKeyFromDoc(doc) : null;
    },
    async reroll(id, userId, r) {
      const doc = await c.apiKeys.findOneAndUpdate(owned(id, userId), apiKeyRerollUpdate(r), {
        returnDocument: "after",
      });
      return doc ? apiKeyFromDoc(doc) : null;
    },
    async touchLastUsed(id, now, resolutionMs) {
      const staleAt = new Date(now.getTime() - resolutionMs);
      await c.apiKeys.updateOne(
        { _id: { $eq: id }, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lte: staleAt } }] },
        { $set: { lastUsedAt: now } },
      );
    },
    async delete(id, userId) {
      const doc = await c.apiKeys.findOneAndDelete(owned(id, userId));
      return doc ? apiKeyFromDoc(doc) : null;
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
        const reason = await apiKeyUseRefusalAt(key, now, async () => {
          // The server's clock, read only to name a refusal the bounded instant decided.
          const [clock] = await c.apiKeys
            .aggregate<{ now: Date }>([{ $match: { _id: { $eq: id } } }, { $limit: 1 }, { $project: { now: "$$NOW" } }])
            .toArray();
          return clock ? clock.now.getTime() : Date.now();
        });
        if (reason !== null) return { ok: false, reason, key };
      }
      return { ok: false, reason: "RATE_LIMITED", key };
    },
  };
}

/** What the sweep calls: both in batches of at most `limit` keys when given. */
function sweeps(c: Collections): Pick<ApiKeyStore, "deleteExpiredRerolls" | "deleteExpired"> {
  return {
    async deleteExpiredRerolls(now, limit) {
      const ended: Filter<ApiKeyDoc> = { previousKeyExpiresAt: { $lte: now } };
      let filter = ended;
      if (limit !== undefined) {
        // A batch: at most `limit` ids, then one updateMany that repeats the condition (a reroll meanwhile stays).
        const ids = (
          await c.apiKeys
            .find(ended, { projection: { _id: 1 } })
            .limit(limit)
            .toArray()
        ).map((k) => k._id);
        if (ids.length === 0) return 0;
        filter = { ...ended, _id: { $in: ids } };
      }
      const result = await c.apiKeys.updateMany(filter, {
        $set: { previousKeyHash: null, previousKeyExpiresAt: null },
      });
      return result.modifiedCount;
    },
    async deleteExpired(now, userId, limit) {
      const expired: Filter<ApiKeyDoc> =
        userId === null ? { expiresAt: { $lte: now } } : { userId: { $eq: userId }, expiresAt: { $lte: now } };
      const found = c.apiKeys.find(expired, { projection: { _id: 1, userId: 1 } });
      const candidates = await (limit === undefined ? found : found.limit(limit)).toArray();
      if (candidates.length === 0) return [];
      // One deleteMany per batch (the filter repeats the expiry, so a key extended meanwhile stays). Only when it
      // removed fewer than it was given (a key extended, or deleted by someone else, meanwhile) are the ids still
      // present read, to leave them out of the answer.
      const ids = candidates.map((k) => k._id);
      const { deletedCount } = await c.apiKeys.deleteMany({ ...expired, _id: { $in: ids } });
      if (deletedCount === candidates.length) return candidates.map((k) => ({ id: k._id, userId: k.userId }));
      const left = await c.apiKeys.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray();
      const kept = new Set(left.map((k) => k._id));
      return candidates.filter((k) => !kept.has(k._id)).map((k) => ({ id: k._id, userId: k.userId }));
    },
  };
}

/** The reads: by hash (alone, or with the owner for a verify), by id, and a user's page. */
function lookups(
  c: Collections,
): Pick<ApiKeyStore, "findByHash" | "findByHashWithOwner" | "findById" | "listByUser" | "listByOrganization"> {
  const newestFirst = async (filter: Filter<ApiKeyDoc>, limit: number, cursor: string | null) => {
    const after = keysetFilter("createdAt", cursor);
    if (after === null) return { items: [], nextCursor: null };
    const docs = await c.apiKeys
      .find({ ...filter, ...after })
      .sort({ createdAt: -1, _id: -1 })
      .limit(limit + 1)
      .toArray();
    const items = docs.slice(0, limit).map(apiKeyFromDoc);
    const last = items[items.length - 1];
    return { items, nextCursor: docs.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
  };
  return {
    async findByHash(keyHash) {
      const doc = await c.apiKeys.findOne(apiKeyHashFilter(keyHash));
      return doc ? apiKeyFromDoc(doc) : null;
    },
    async findByHashWithOwner(keyHash) {
      // One round trip: the key joined with its owner. A key left behind by an interrupted or racing deletion of
      // its owner (without a replica set the user and its keys are separate writes) joins nothing: not found.
      const [row] = await c.apiKeys
        .aggregate<ApiKeyDoc & { owner: UserDoc[] }>([
          { $match: apiKeyHashFilter(keyHash) },
          { $limit: 1 },
          { $lookup: { from: COLLECTION_NAMES.users, localField: "userId", foreignField: "_id", as: "owner" } },
        ])
        .toArray();
      const owner = row?.owner[0];
      return row && owner ? { key: apiKeyFromDoc(row), user: userFromDoc(owner) } : null;
    },
    async findById(id) {
      const doc = await c.apiKeys.findOne({ _id: { $eq: id } });
      return doc ? apiKeyFromDoc(doc) : null;
    },
    listByUser: (userId, { limit, cursor }) => newestFirst({ userId: { $eq: userId } }, limit, cursor),
    // `$type: "string"` matches the partial index (`organizationId_createdAt`: only keys of an organization).
    listByOrganization: (organizationId, { limit, cursor }) =>
      newestFirst({ organizationId: { $eq: organizationId, $type: "string" } }, limit, cursor),
  };
}
