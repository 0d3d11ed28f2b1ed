import type { ApiKeyRecord } from "@latchkey/core";
import { fixtures } from "@latchkey/store-conformance";

/**
 * A stored API key as a test writes it straight into a store: a plain key (no quota, limit, refill, reroll or
 * expiry, nothing used yet, no metadata or permissions) with `over` on top. Only `id`, `userId`, `keyHash` and the
 * dates have no default. Built on the conformance suite's `fixtures.apiKey`, so a new field is added in one place.
 *
 * @example
 * await store.apiKeys.create(apiKeyRecord({ id: "k1", userId, keyHash: hashSecret(key), createdAt: now, updatedAt: now }));
 */
export function apiKeyRecord(
  over: Partial<ApiKeyRecord> & Pick<ApiKeyRecord, "id" | "userId" | "keyHash" | "createdAt" | "updatedAt">,
): ApiKeyRecord {
  return fixtures.apiKey(over.userId, { metadata: {}, serverMetadata: {}, permissions: {}, ...over });
}
