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

/** Reads in flight at once for one usage request on a counters port without `peekMany`. */
export const USAGE_PEEK_CONCURRENCY = 4;

/**
 * Every counter of a usage request in one read (`peekMany`: one statement, one Redis MGET) where the port has it;
 * otherwise key by key, at most `USAGE_PEEK_CONCURRENCY` in flight, so one request cannot take a database pool.
 */
async function peekAll(
  counters: CounterStore,
  keys: readonly string[],
  now: number,
): Promise<Array<{ count: number } | null>> {
  if (counters.peekMany) return counters.peekMany(keys, now);
  const out: Array<{ count: number } | null> = new Array(keys.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const i = next++;
      out[i] = await counters.peek(keys[i] as string, now);
    }
  };
  await Promise.all(Array.from({ length: Math.min(USAGE_PEEK_CONCURRENCY, keys.length) }, worker));
  return out;
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
  const keys = dates.flatMap((date) => outcomes.map((o) => counterKey(keyId, date, o)));
  const counts = (await peekAll(counters, keys, now)).map((state) => state?.count ?? 0);
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
