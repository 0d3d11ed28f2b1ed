import type { CounterStore } from "../ports/store.ts";
import type { ApiKeyVerifyErrorCode } from "./view.ts";

const DAY_MS = 86_400_000;

/** What one verify of a known key counts as: a valid use, or a refusal by its code. */
export type ApiKeyUsageOutcome = "valid" | ApiKeyVerifyErrorCode;

/** The refusal codes a day's usage reports (every refusal that names a key). */
const REFUSAL_CODES: readonly ApiKeyVerifyErrorCode[] = [
  "INVALID_API_KEY",
  "KEY_DISABLED",
  "KEY_EXPIRED",
  "USAGE_EXCEEDED",
  "RATE_LIMITED",
  "INSUFFICIENT_PERMISSIONS",
];

/** One UTC day of a key's usage: valid verifies and refusals by code (codes with none are left out). */
export interface ApiKeyUsageDay {
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  valid: number;
  refused: Partial<Record<ApiKeyVerifyErrorCode, number>>;
}

const dayOf = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
const counterKey = (keyId: string, date: string, outcome: ApiKeyUsageOutcome) =>
  `api-key-usage:${keyId}:${date}:${outcome}`;

/**
 * Counts one verify of `keyId` on today's (UTC) counter for its outcome. The counter's window ends `retentionMs`
 * after the day ends, so the counters sweep (or Redis expiry) removes it then.
 *
 * @example
 * await recordApiKeyUsage(store.counters, keyId, "valid", Date.now(), 90 * 86_400_000);
 */
export async function recordApiKeyUsage(
  counters: CounterStore,
  keyId: string,
  outcome: ApiKeyUsageOutcome,
  now: number,
  retentionMs: number,
): Promise<void> {
  const dayEnd = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  await counters.hit(counterKey(keyId, dayOf(now), outcome), dayEnd + retentionMs - now, now);
}

/**
 * The last `days` UTC days of a key's usage, oldest first, today included; days without a verify count zero.
 *
 * @example
 * const days = await readApiKeyUsage(store.counters, keyId, 14, Date.now());
 */
export async function readApiKeyUsage(
  counters: CounterStore,
  keyId: string,
  days: number,
  now: number,
): Promise<ApiKeyUsageDay[]> {
  const today = Math.floor(now / DAY_MS);
  const dates = Array.from({ length: days }, (_, i) => dayOf((today - days + 1 + i) * DAY_MS));
  const outcomes: ApiKeyUsageOutcome[] = ["valid", ...REFUSAL_CODES];
  // Independent reads, issued together: a database-backed counters port pipelines them over its pool.
  const counts = await Promise.all(
    dates.flatMap((date) =>
      outcomes.map(async (o) => (await counters.peek(counterKey(keyId, date, o), now))?.count ?? 0),
    ),
  );
  return dates.map((date, d) => {
    const row = counts.slice(d * outcomes.length, (d + 1) * outcomes.length);
    const refused: ApiKeyUsageDay["refused"] = {};
    REFUSAL_CODES.forEach((code, i) => {
      const n = row[i + 1] ?? 0;
      if (n > 0) refused[code] = n;
    });
    return { date, valid: row[0] ?? 0, refused };
  });
}
