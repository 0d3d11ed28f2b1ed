import type { ApiKeyRecord, ApiKeyStore, ApiKeyUseResult, RevokedApiKey } from "@latchkey/core";
import { copy, dropApiKey, type MemoryDatabase } from "./database.ts";
import { orderKey, page } from "./keyset.ts";

/** `ApiKeyStore` in memory, indexed by key hash; a use is decided and recorded in one synchronous step. */
export function apiKeysPort(db: MemoryDatabase): ApiKeyStore {
  const { apiKeys, apiKeysByHash } = db;
  return {
    async create(key) {
      apiKeys.set(key.id, copy(key));
      apiKeysByHash.set(key.keyHash, key.id);
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
    async update(id, userId, patch) {
      const k = apiKeys.get(id);
      if (!k || (userId !== null && k.userId !== userId)) return null;
      const next = { ...k, ...copy(patch) } as ApiKeyRecord;
      apiKeys.set(id, next);
      return copy(next);
    },
    async delete(id, userId) {
      const k = apiKeys.get(id);
      if (!k || (userId !== null && k.userId !== userId)) return null;
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
      const k = apiKeys.get(id);
      if (!k) return { ok: false, reason: "NOT_FOUND", key: null };
      if (!k.enabled) return { ok: false, reason: "KEY_DISABLED", key: copy(k) };
      if (k.expiresAt !== null && k.expiresAt <= now) return { ok: false, reason: "KEY_EXPIRED", key: copy(k) };
      if (k.remaining !== null && k.remaining <= 0) return { ok: false, reason: "USAGE_EXCEEDED", key: copy(k) };
      let requestCount = k.requestCount;
      let windowStart = k.windowStart;
      if (k.rateLimitMax !== null && k.rateLimitWindowMs !== null) {
        const fresh = windowStart === null || windowStart.getTime() + k.rateLimitWindowMs <= now.getTime();
        if (fresh) {
          requestCount = 0;
          windowStart = new Date(now);
        }
        if (requestCount >= k.rateLimitMax) return { ok: false, reason: "RATE_LIMITED", key: copy(k) };
        requestCount += 1;
      }
      const next: ApiKeyRecord = {
        ...k,
        remaining: k.remaining === null ? null : k.remaining - 1,
        requestCount,
        windowStart,
        lastUsedAt: new Date(now),
      };
      apiKeys.set(id, next);
      return { ok: true, key: copy(next) };
    },
  };
}
