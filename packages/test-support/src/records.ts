import type { ApiKeyRecord } from "@latchkey/core";

/**
 * A stored API key as a test writes it straight into a store: a plain key (no quota, limit, refill, reroll or
 * expiry, nothing used yet) with `over` on top. Only `id`, `userId`, `keyHash` and the dates have no default.
 *
 * @example
 * await store.apiKeys.create(apiKeyRecord({ id: "k1", userId, keyHash: hashSecret(key), createdAt: now, updatedAt: now }));
 */
export function apiKeyRecord(
  over: Partial<ApiKeyRecord> & Pick<ApiKeyRecord, "id" | "userId" | "keyHash" | "createdAt" | "updatedAt">,
): ApiKeyRecord {
  return {
    name: "ci",
    prefix: "lk_",
    start: "lk_AbCdE",
    enabled: true,
    locked: false,
    metadata: {},
    serverMetadata: {},
    permissions: {},
    remaining: null,
    refillAmount: null,
    refillIntervalMs: null,
    lastRefillAt: null,
    previousKeyHash: null,
    previousKeyExpiresAt: null,
    rerolledAt: null,
    rateLimitMax: null,
    rateLimitWindowMs: null,
    requestCount: 0,
    windowStart: null,
    lastUsedAt: null,
    expiresAt: null,
    ...over,
  };
}
