import type { ApiKeyRecord } from "../ports/records.ts";
import type { ApiKeyUseRefusal } from "../ports/store.ts";
import { jsApiKeyUseRule, refusalOf } from "./use-rule-js.ts";

/**
 * True when a use at `now` finds the key's refill interval passed since its last refill (so the use resets
 * `remaining` to `refillAmount` first). The rule is `apiKeyUseRule`'s `refillDue`, evaluated in JavaScript.
 *
 * @example
 * isRefillDue({ refillAmount: 10, refillIntervalMs: 86_400_000, lastRefillAt, ... }, new Date());
 */
export function isRefillDue(key: ApiKeyRecord, now: Date): boolean {
  return jsApiKeyUseRule(now).refillDue(key);
}

/**
 * Why a key cannot be used at `now`, in the order every store checks (disabled, expired, used up without a
 * refill due, over its window limit); null when it could. The rule is `apiKeyUseRule`, the one the stores run in
 * their atomic write; stores call this only to explain a `consumeUse` whose write matched nothing.
 *
 * @example
 * const reason = apiKeyUseRefusal(await store.apiKeys.findById(id), new Date());
 */
export function apiKeyUseRefusal(key: ApiKeyRecord | null, now: Date): ApiKeyUseRefusal | null {
  if (key === null) return "NOT_FOUND";
  return refusalOf(jsApiKeyUseRule(now), key);
}
