import type { ApiKeyRecord } from "../ports/records.ts";
import type { ApiKeyUseRefusal } from "../ports/store.ts";

/**
 * True when a use at `now` finds the key's refill interval passed since its last refill (so the use resets
 * `remaining` to `refillAmount` first). Stores decide this inside their atomic write; this is the same rule in
 * JavaScript, for the memory store and for explaining a refusal.
 *
 * @example
 * isRefillDue({ refillAmount: 10, refillIntervalMs: 86_400_000, lastRefillAt, ... }, new Date());
 */
export function isRefillDue(key: ApiKeyRecord, now: Date): boolean {
  return (
    key.refillAmount !== null &&
    key.refillIntervalMs !== null &&
    (key.lastRefillAt ?? key.createdAt).getTime() + key.refillIntervalMs <= now.getTime()
  );
}

/**
 * Why a key cannot be used at `now`, in the order every store checks (disabled, expired, used up without a
 * refill due, over its window limit); null when it could. Stores use it only to explain a `consumeUse` whose
 * atomic write matched nothing: it never decides a use by itself.
 *
 * @example
 * const reason = apiKeyUseRefusal(await store.apiKeys.findById(id), new Date());
 */
export function apiKeyUseRefusal(key: ApiKeyRecord | null, now: Date): ApiKeyUseRefusal | null {
  if (key === null) return "NOT_FOUND";
  if (!key.enabled) return "KEY_DISABLED";
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) return "KEY_EXPIRED";
  if (key.remaining !== null && key.remaining <= 0 && !isRefillDue(key, now)) return "USAGE_EXCEEDED";
  if (key.rateLimitMax !== null && key.rateLimitWindowMs !== null) {
    const ended = key.windowStart === null || key.windowStart.getTime() + key.rateLimitWindowMs <= now.getTime();
    if ((ended ? 0 : key.requestCount) >= key.rateLimitMax) return "RATE_LIMITED";
  }
  return null;
}
