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

/** How far a use's instant may run ahead of the store's own clock (see `boundByStoreClock`). */
export const STORE_CLOCK_LEAD_MS = 1000;

/**
 * The instant a store applies the use rule at: the caller's, but never more than `STORE_CLOCK_LEAD_MS` ahead of
 * the store's own clock (PostgreSQL's `now()`, SQLite's `julianday('now')`, MongoDB's `$$NOW`). An instance whose
 * clock runs ahead would otherwise stamp a key's rate-limit window and refill into the future of every other
 * instance, which would then refuse the key until their clocks caught up. An instance whose clock runs behind
 * only delays itself.
 *
 * @example
 * boundByStoreClock(new Date(Date.now() + 3_600_000), Date.now()); // about Date.now() + 1 s
 */
export function boundByStoreClock(now: Date, storeNowMs: number): Date {
  const bound = storeNowMs + STORE_CLOCK_LEAD_MS;
  return now.getTime() > bound ? new Date(bound) : now;
}

/**
 * `apiKeyUseRefusal` for a store whose write applied the rule at `boundByStoreClock(now, <its clock>)`: the
 * caller's instant first (no extra read), and only when nothing refuses there, the bounded instant, with the
 * store's clock read then (`storeNowMs`).
 *
 * @example
 * const reason = await apiKeyUseRefusalAt(key, now, async () => (await db.query("select now()")).getTime());
 */
export async function apiKeyUseRefusalAt(
  key: ApiKeyRecord | null,
  now: Date,
  storeNowMs: () => Promise<number>,
): Promise<ApiKeyUseRefusal | null> {
  const reason = apiKeyUseRefusal(key, now);
  if (reason !== null || key === null) return reason;
  const bounded = boundByStoreClock(now, await storeNowMs());
  return bounded === now ? null : apiKeyUseRefusal(key, bounded);
}
