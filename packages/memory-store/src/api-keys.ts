import {
  apiKeyUseRefusal,
  isRefillDue,
  type ApiKeyRecord,
  type ApiKeyStore,
  type ApiKeyUseResult,
  type RevokedApiKey,
} from "@latchkey/core";
import { copy, dropApiKey, type MemoryDatabase } from "./database.ts";
import { orderKey, page } from "./keyset.ts";

/**
 * `ApiKeyStore` in memory, indexed by key hash (current and rerolled values); every decision and its write happen
 * in one synchronous step.
 */
export function apiKeysPort(db: MemoryDatabase): ApiKeyStore {
  const { apiKeys, apiKeysByHash } = db;
  const ownedBy = (id: string, userId: string | null) => {
    const k = apiKeys.get(id);
    return k && (userId === null || k.userId === userId) ? k : null;
  };
  const dropPrevious = (k: ApiKeyRecord) => {
    if (k.previousKeyHash !== null && apiKeysByHash.get(k.previousKeyHash) === k.id)
      apiKeysByHash.delete(k.previousKeyHash);
  };
  return {
    async create(key, options = {}) {
      const max = options.maxPerUser ?? null;
      if (max !== null) {
        let owned = 0;
        for (const k of apiKeys.values()) if (k.userId === key.userId) owned++;
        if (owned >= max) return false;
      }
      apiKeys.set(key.id, copy(key));
      apiKeysByHash.set(key.keyHash, key.id);
      if (key.previousKeyHash !== null) apiKeysByHash.set(key.previousKeyHash, key.id);
      return true;
    },
    async findByHash(keyHash) {
      const id = apiKeysByHash.get(keyHash);
      return id ? copy(apiKeys.get(id)!) : null;
    },
    async findById(id) {
      const k = apiKeys.get(id);
      return k ? copy(k) : null;
    },
    async listByUser(userId, { limit, cursor }) {
      const mine = [...apiKeys.values()].filter((k) => k.userId === userId);
      mine.sort((a, b) => (orderKey(b.createdAt, b.id) < orderKey(a.createdAt, a.id) ? -1 : 1));
      return page(mine, limit, cursor, (k) => orderKey(k.createdAt, k.id));
    },
    async update(id, userId, patch, options = {}) {
      const k = ownedBy(id, userId);
      if (!k || (options.unlessLocked && k.locked)) return null;
      const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      const next = { ...k, ...copy(defined) } as ApiKeyRecord;
      apiKeys.set(id, next);
      return copy(next);
    },
    async reroll(id, userId, r) {
      const k = ownedBy(id, userId);
      if (!k) return null;
      dropPrevious(k);
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
    async deleteExpiredRerolls(now) {
      let cleared = 0;
      for (const k of apiKeys.values()) {
        if (k.previousKeyExpiresAt === null || k.previousKeyExpiresAt > now) continue;
        dropPrevious(k);
        apiKeys.set(k.id, { ...k, previousKeyHash: null, previousKeyExpiresAt: null });
        cleared++;
      }
      return cleared;
    },
    async touchLastUsed(id, now, resolutionMs) {
      const k = apiKeys.get(id);
      if (!k || (k.lastUsedAt !== null && k.lastUsedAt.getTime() + resolutionMs > now.getTime())) return;
      apiKeys.set(id, { ...k, lastUsedAt: new Date(now) });
    },
    async delete(id, userId) {
      if (!ownedBy(id, userId)) return null;
      return copy(dropApiKey(db, id)!);
    },
    async deleteExpired(now, userId) {
      const gone: RevokedApiKey[] = [];
      for (const k of [...apiKeys.values()]) {
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
    async consumeUse(id, now): Promise<ApiKeyUseResult> {
      const k = apiKeys.get(id) ?? null;
      // Core decides whether the use is refused (and why); this store only applies the use. Memory is one thread,
      // so the check and the write below are atomic.
      const reason = apiKeyUseRefusal(k, now);
      if (k === null || reason !== null) return { ok: false, reason: reason ?? "NOT_FOUND", key: k && copy(k) };
      const refill = isRefillDue(k, now);
      let requestCount = k.requestCount;
      let windowStart = k.windowStart;
      if (k.rateLimitMax !== null && k.rateLimitWindowMs !== null) {
        const fresh = windowStart === null || windowStart.getTime() + k.rateLimitWindowMs <= now.getTime();
        if (fresh) {
          requestCount = 0;
          windowStart = new Date(now);
        }
        requestCount += 1;
      }
      const next: ApiKeyRecord = {
        ...k,
        remaining: refill ? (k.refillAmount as number) - 1 : k.remaining === null ? null : k.remaining - 1,
        lastRefillAt: refill ? new Date(now) : k.lastRefillAt,
        requestCount,
        windowStart,
        lastUsedAt: new Date(now),
      };
      apiKeys.set(id, next);
      return { ok: true, key: copy(next) };
    },
  };
}
