import {
  boundByStoreClock,
  type ApiKeyRecord,
  type ApiKeyStore,
  type ApiKeyUseResult,
  type RevokedApiKey,
} from "@latchkey/core";
import { applyUse, jsApiKeyUseRule, refusalOf } from "@latchkey/core/internal";
import { copy, dropApiKey, type MemoryDatabase } from "./database.ts";
import { orderKey, page } from "./keyset.ts";
import { memberOf } from "./organizations.ts";

const ownedBy = (db: MemoryDatabase, id: string, userId: string | null) => {
  const k = db.apiKeys.get(id);
  return k && (userId === null || k.userId === userId) ? k : null;
};
const dropPrevious = ({ apiKeysByHash }: MemoryDatabase, k: ApiKeyRecord) => {
  if (k.previousKeyHash !== null && apiKeysByHash.get(k.previousKeyHash) === k.id)
    apiKeysByHash.delete(k.previousKeyHash);
};

/**
 * `ApiKeyStore` in memory, indexed by key hash (current and rerolled values) and by user (the table's index); every
 * decision and its write happen in one synchronous step.
 */
export function apiKeysPort(db: MemoryDatabase): ApiKeyStore {
  return { ...lookups(db), ...changes(db), ...removals(db) };
}

/** Reads, and the use (core's rule decides it, evaluated in JavaScript). */
function lookups(
  db: MemoryDatabase,
): Pick<
  ApiKeyStore,
  "findByHash" | "findByHashWithOwner" | "findById" | "listByUser" | "listByOrganization" | "consumeUse"
> {
  const { apiKeys, apiKeysByHash, users } = db;
  return {
    async findByHash(keyHash) {
      const id = apiKeysByHash.get(keyHash);
      return id ? copy(apiKeys.get(id)!) : null;
    },
    async findByHashWithOwner(keyHash) {
      // Both maps read in one synchronous step: no write lands between the key and its owner.
      const id = apiKeysByHash.get(keyHash);
      const k = id === undefined ? undefined : apiKeys.get(id);
      const owner = k && users.get(k.userId);
      return k && owner ? { key: copy(k), user: copy(owner) } : null;
    },
    async findById(id) {
      const k = apiKeys.get(id);
      return k ? copy(k) : null;
    },
    async listByUser(userId, { limit, cursor }) {
      const mine = apiKeys.rowsBy("user", userId);
      mine.sort((a, b) => (orderKey(b.createdAt, b.id) < orderKey(a.createdAt, a.id) ? -1 : 1));
      return page(mine, limit, cursor, (k) => orderKey(k.createdAt, k.id));
    },
    async listByOrganization(organizationId, { limit, cursor }) {
      const theirs = apiKeys.rowsBy("organization", organizationId);
      theirs.sort((a, b) => (orderKey(b.createdAt, b.id) < orderKey(a.createdAt, a.id) ? -1 : 1));
      return page(theirs, limit, cursor, (k) => orderKey(k.createdAt, k.id));
    },
    async consumeUse(id, now): Promise<ApiKeyUseResult> {
      const k = apiKeys.get(id);
      if (!k) return { ok: false, reason: "NOT_FOUND", key: null };
      // Core's rule decides and computes the write; memory is one thread, so both are one atomic step. The store's
      // clock is this process's: a caller's instant never runs more than a second ahead of it (boundByStoreClock).
      const rule = jsApiKeyUseRule(boundByStoreClock(now, Date.now()));
      const reason = refusalOf(rule, k);
      if (reason !== null) return { ok: false, reason, key: copy(k) };
      const next = applyUse(rule, k);
      apiKeys.set(id, next);
      return { ok: true, key: copy(next) };
    },
  };
}

function changes(db: MemoryDatabase): Pick<ApiKeyStore, "create" | "update" | "reroll" | "touchLastUsed"> {
  const { apiKeys, apiKeysByHash, users } = db;
  return {
    async create(key, options = {}) {
      // What a foreign key does in the SQL stores: no key for a user that is not there.
      if (!users.has(key.userId)) return "owner-gone";
      // An organization's key only for a member of it (so never for a deleted organization).
      if (key.organizationId != null && !memberOf(db, key.organizationId, key.userId)) return "organization-gone";
      const max = options.maxPerUser ?? null;
      if (max !== null && apiKeys.rowsBy("user", key.userId).length >= max) return false;
      apiKeys.set(key.id, copy(key));
      apiKeysByHash.set(key.keyHash, key.id);
      if (key.previousKeyHash !== null) apiKeysByHash.set(key.previousKeyHash, key.id);
      return true;
    },
    async update(id, userId, patch, options = {}) {
      const k = ownedBy(db, id, userId);
      if (!k || (options.unlessLocked && k.locked)) return null;
      const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      const next = { ...k, ...copy(defined) } as ApiKeyRecord;
      apiKeys.set(id, next);
      return copy(next);
    },
    async reroll(id, userId, r) {
      const k = ownedBy(db, id, userId);
      if (!k) return null;
      dropPrevious(db, k);
      apiKeysByHash.delete(k.keyHash);
      const next: ApiKeyRecord = {
        ...k,
        keyHash: r.keyHash,
        start: r.start,
        previousKeyHash: r.graceUntil === null ? null : k.keyHash,
        previousKeyExpiresAt: r.graceUntil === null ? null : new Date(r.graceUntil),
        rerolledAt: new Date(r.at),
        updatedAt: new Date(r.at),
      };
      apiKeys.set(id, next);
      apiKeysByHash.set(next.keyHash, id);
      if (next.previousKeyHash !== null) apiKeysByHash.set(next.previousKeyHash, id);
      return copy(next);
    },
    async touchLastUsed(id, now, resolutionMs) {
      const k = apiKeys.get(id);
      if (!k || (k.lastUsedAt !== null && k.lastUsedAt.getTime() + resolutionMs > now.getTime())) return;
      apiKeys.set(id, { ...k, lastUsedAt: new Date(now) });
    },
  };
}

function removals(db: MemoryDatabase): Pick<ApiKeyStore, "delete" | "deleteExpired" | "deleteExpiredRerolls"> {
  const { apiKeys } = db;
  return {
    async deleteExpiredRerolls(now, limit = Number.POSITIVE_INFINITY) {
      let cleared = 0;
      for (const k of apiKeys.values()) {
        if (cleared >= limit) break;
        if (k.previousKeyExpiresAt === null || k.previousKeyExpiresAt > now) continue;
        dropPrevious(db, k);
        apiKeys.set(k.id, { ...k, previousKeyHash: null, previousKeyExpiresAt: null });
        cleared++;
      }
      return cleared;
    },
    async delete(id, userId) {
      if (!ownedBy(db, id, userId)) return null;
      return copy(dropApiKey(db, id)!);
    },
    async deleteExpired(now, userId, limit = Number.POSITIVE_INFINITY) {
      const gone: RevokedApiKey[] = [];
      // One owner's keys through the user index; every owner's (the sweep) by walking the table.
      for (const k of userId === null ? [...apiKeys.values()] : apiKeys.rowsBy("user", userId)) {
        if (gone.length >= limit) break;
        if (
          k.expiresAt !== null &&
          k.expiresAt <= now &&
          (userId === null || k.userId === userId) &&
          dropApiKey(db, k.id)
        )
          gone.push({ id: k.id, userId: k.userId });
      }
      return gone;
    },
  };
}
