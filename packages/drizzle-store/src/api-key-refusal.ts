import { AuthError, type ApiKeyRecord, type ApiKeyUseRefusal } from "@latchkey/core";

/**
 * Why `consumeUse` refused a key, read from the row after the conditional UPDATE matched nothing.
 * The checks and their order are the UPDATE's WHERE clause; null means the row would pass now
 * (it changed between the two statements), so the caller tries the UPDATE again.
 */
export function apiKeyRefusal(key: ApiKeyRecord, now: Date): Exclude<ApiKeyUseRefusal, "NOT_FOUND"> | null {
  if (!key.enabled) return "KEY_DISABLED";
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) return "KEY_EXPIRED";
  if (key.remaining !== null && key.remaining <= 0) return "USAGE_EXCEEDED";
  if (key.rateLimitMax !== null && key.rateLimitWindowMs !== null) {
    const windowEnded = key.windowStart === null || key.windowStart.getTime() + key.rateLimitWindowMs <= now.getTime();
    const used = windowEnded ? 0 : key.requestCount;
    if (used >= key.rateLimitMax) return "RATE_LIMITED";
  }
  return null;
}

/** How often `consumeUse` runs its UPDATE when the row keeps changing under it (only a concurrent update() can). */
export const CONSUME_ATTEMPTS = 3;

/** The key changed between every UPDATE and the read that followed it; no honest answer is left. */
export function unstableKeyError(id: string): AuthError {
  return new AuthError("INTERNAL_ERROR", `API key ${id} changed during each of ${CONSUME_ATTEMPTS} use attempts`);
}
