import { AuthConfigError, AuthError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import type { JsonObject, Permissions } from "../ports/records.ts";
import { normalizePermissions } from "./permissions.ts";
import {
  API_KEY_PREFIX_SHAPE,
  MAX_API_KEY_COUNT,
  MAX_API_KEY_LIFETIME_MS,
  MAX_RATE_LIMIT_WINDOW_MS,
  MIN_REFILL_INTERVAL_MS,
} from "./options.ts";
import { API_KEY_LIMITS } from "./limits.ts";

/** Key names only trusted server code may send: quota, rate limit, refill and owner. */
const SERVER_ONLY = new Set([
  "userId",
  "remaining",
  "rateLimitEnabled",
  "rateLimitMax",
  "rateLimitWindow",
  "rateLimitWindowMs",
  "rateLimitTimeWindow",
  "requestCount",
  "lastRequest",
  "serverMetadata",
  "locked",
]);

const MAX_API_KEY_NAME = API_KEY_LIMITS.name;

/** 400 INVALID_REQUEST naming one field. */
export function invalidInput(path: string, message: string): AuthError {
  return invalid(path, message);
}

function invalid(path: string, message: string): AuthError {
  return new AuthError("INVALID_REQUEST", `${path} ${message}`, { details: [{ path, message }] });
}

/**
 * Refuses a caller body that names a server-only property (400 SERVER_ONLY_PROPERTY) instead of silently
 * dropping it, so a client asking for a bigger quota or another owner learns it cannot.
 *
 * @example
 * assertNoServerOnlyFields({ name: "ci", remaining: 1e9 }); // throws SERVER_ONLY_PROPERTY
 */
export function assertNoServerOnlyFields(body: Record<string, unknown>): void {
  const fields = Object.keys(body).filter((k) => SERVER_ONLY.has(k) || k.startsWith("refill"));
  if (fields.length > 0) {
    throw new AuthError("SERVER_ONLY_PROPERTY", `${fields.join(", ")} can only be set by the server`, {
      details: fields.map((path) => ({ path, message: "server-only property" })),
    });
  }
}

/**
 * Refuses (400 INVALID_REQUEST, naming each) the fields of a caller body that the route does not apply, so a
 * request is never answered 200 while part of it was ignored. Run after `assertNoServerOnlyFields`.
 *
 * @example
 * assertKnownFields({ keyId: "k", expiresIn: "1d" }, ["keyId", "name"]); // throws, naming expiresIn
 */
export function assertKnownFields(body: Record<string, unknown>, known: readonly string[]): void {
  const fields = Object.keys(body).filter((k) => !known.includes(k));
  if (fields.length > 0) {
    throw new AuthError("INVALID_REQUEST", `${fields.join(", ")}: not a field this request accepts`, {
      details: fields.map((path) => ({ path, message: "unknown field: this request does not apply it" })),
    });
  }
}

export function checkName(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== "string" || value.length > MAX_API_KEY_NAME)
    throw invalid("name", `must be null or a string of at most ${MAX_API_KEY_NAME} characters`);
  if (!isStorableText(value)) throw invalid("name", "must be valid Unicode text without NUL (U+0000)");
  return value;
}

// A lone surrogate (half of a UTF-16 pair) or NUL: PostgreSQL refuses NUL in text and jsonb, and stores turn a lone
// surrogate into U+FFFD or keep it, so such text would read back differently per store.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const isStorableText = (s: string) => !s.includes("\u0000") && !LONE_SURROGATE.test(s);

/** How deep metadata may nest (objects and arrays). */
const MAX_METADATA_DEPTH = 32;

/**
 * A copy of `value` as JSON reads it back, or the path of the first part that is not JSON: a `Date`, `undefined`,
 * `NaN` or an infinity, a function, a class instance, text with NUL or a lone surrogate. `-0` becomes `0`. What
 * passes reads back the same from every store (JSON text on SQL, jsonb, BSON).
 */
function toJson(
  value: unknown,
  path: string,
  depth: number,
): { ok: true; value: unknown } | { ok: false; path: string; message: string } {
  if (value === null || typeof value === "boolean") return { ok: true, value };
  if (typeof value === "string")
    return isStorableText(value)
      ? { ok: true, value }
      : { ok: false, path, message: "must be valid Unicode text without NUL (U+0000)" };
  if (typeof value === "number")
    return Number.isFinite(value)
      ? { ok: true, value: value === 0 ? 0 : value }
      : { ok: false, path, message: "must be a finite number (JSON has no NaN or Infinity)" };
  if (typeof value !== "object") return { ok: false, path, message: `${typeof value} is not JSON` };
  if (depth >= MAX_METADATA_DEPTH)
    return { ok: false, path, message: `nests deeper than ${MAX_METADATA_DEPTH} levels` };
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const item = toJson(value[i], `${path}.${i}`, depth + 1);
      if (!item.ok) return item;
      out.push(item.value);
    }
    return { ok: true, value: out };
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null)
    return { ok: false, path, message: "must be a plain object (a Date or class instance is not JSON)" };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!isStorableText(k))
      return { ok: false, path: `${path}.${k}`, message: "key must be valid Unicode text without NUL" };
    const item = toJson(v, `${path}.${k}`, depth + 1);
    if (!item.ok) return item;
    out[k] = item.value;
  }
  return { ok: true, value: out };
}

export function checkPrefix(value: unknown): string {
  if (typeof value !== "string" || !API_KEY_PREFIX_SHAPE.test(value))
    throw invalid("prefix", `must be 1 to ${API_KEY_LIMITS.prefix} characters of A-Z a-z 0-9 _`);
  return value;
}

/**
 * An API key's `metadata` or `serverMetadata`: a JSON object (see `toJson`), returned as a copy (400 naming the
 * first part that is not JSON).
 */
export function checkMetadata(value: unknown, path: "metadata" | "serverMetadata" = "metadata"): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid(path, "must be an object");
  const json = toJson(value, path, 0);
  if (!json.ok)
    throw new AuthError("INVALID_REQUEST", `${json.path} ${json.message}`, {
      details: [{ path: json.path, message: json.message }],
    });
  return json.value as JsonObject;
}

export function checkPermissions(value: unknown): Permissions {
  const checked = normalizePermissions(value);
  if (!checked.ok) throw invalid("permissions", checked.message);
  return checked.value;
}

export function checkEnabled(value: unknown): boolean {
  if (typeof value !== "boolean") throw invalid("enabled", "must be a boolean");
  return value;
}

/** A quota or per-window maximum: null, or an integer in `min..2^31-1`. */
export function checkCount(value: unknown, path: string, min: number): number | null {
  if (value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > MAX_API_KEY_COUNT) {
    throw invalid(path, `must be null or an integer from ${min} to ${MAX_API_KEY_COUNT}`);
  }
  return value;
}

function durationMs(value: unknown, path: string, maxMs: number, minMs = 1): number | null {
  if (value === null) return null;
  let ms: number;
  try {
    ms = parseDuration(value as Duration, path);
  } catch (error) {
    if (error instanceof AuthConfigError)
      throw invalid(path, 'must be seconds or a compact duration like "30s", "15m", "7d"');
    throw error;
  }
  if (ms > maxMs) throw invalid(path, `must be at most ${maxMs / 86_400_000} days`);
  if (ms < minMs) throw invalid(path, `must be at least ${minMs / 1000} seconds`);
  return ms;
}

export function checkExpiresIn(value: unknown): number | null {
  return durationMs(value, "expiresIn", MAX_API_KEY_LIFETIME_MS);
}

export function checkRateLimitWindow(value: unknown): number | null {
  return durationMs(value, "rateLimitWindow", MAX_RATE_LIMIT_WINDOW_MS);
}

export function checkRefillInterval(value: unknown): number | null {
  return durationMs(value, "refillInterval", MAX_RATE_LIMIT_WINDOW_MS, MIN_REFILL_INTERVAL_MS);
}

/** `gracePeriod` of a reroll in ms: 0 (the default: the old value stops at once) up to `maxMs`. */
export function checkGracePeriod(value: unknown, maxMs: number): number {
  if (value === undefined || value === null || value === 0 || value === "0" || value === "0s") return 0;
  const ms = durationMs(value, "gracePeriod", Number.MAX_SAFE_INTEGER) as number;
  if (ms > maxMs) throw invalid("gracePeriod", `must be at most ${maxMs / 1000} seconds (apiKeys({ maxRerollGrace }))`);
  return ms;
}

/** The per-key limit after a change: both set or both null (a limit needs a window and the reverse). */
export function resolveRateLimit(
  max: number | null | undefined,
  windowMs: number | null | undefined,
  current: { max: number | null; windowMs: number | null },
): { max: number | null; windowMs: number | null } {
  if (max === null || windowMs === null) {
    if ((max ?? null) !== null || (windowMs ?? null) !== null)
      throw invalid("rateLimitMax", "and rateLimitWindow must be both set or both null");
    return { max: null, windowMs: null };
  }
  const nextMax = max ?? current.max;
  const nextWindow = windowMs === undefined ? current.windowMs : windowMs;
  if (nextMax === null && nextWindow === null) return { max: null, windowMs: null };
  if (nextMax === null) throw invalid("rateLimitMax", "is required with rateLimitWindow");
  if (nextWindow === null) throw invalid("rateLimitWindow", "is required with rateLimitMax");
  return { max: nextMax, windowMs: nextWindow };
}

/**
 * The refill after a change: both set or both null, like the rate limit. A refill needs a quota to refill.
 *
 * @example
 * resolveRefill(100, 86_400_000, { amount: null, intervalMs: null }); // { amount: 100, intervalMs: 86400000 }
 */
export function resolveRefill(
  amount: number | null | undefined,
  intervalMs: number | null | undefined,
  current: { amount: number | null; intervalMs: number | null },
): { amount: number | null; intervalMs: number | null } {
  if (amount === null || intervalMs === null) {
    if ((amount ?? null) !== null || (intervalMs ?? null) !== null)
      throw invalid("refillAmount", "and refillInterval must be both set or both null");
    return { amount: null, intervalMs: null };
  }
  const nextAmount = amount ?? current.amount;
  const nextInterval = intervalMs === undefined ? current.intervalMs : intervalMs;
  if (nextAmount === null && nextInterval === null) return { amount: null, intervalMs: null };
  if (nextAmount === null) throw invalid("refillAmount", "is required with refillInterval");
  if (nextInterval === null) throw invalid("refillInterval", "is required with refillAmount");
  return { amount: nextAmount, intervalMs: nextInterval };
}

/** `limit` of a list page: 1..100, default 20. */
export function checkLimit(value: unknown): number {
  if (value === undefined || value === null) return 20;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 100)
    throw invalid("limit", "must be an integer from 1 to 100");
  return value;
}

export function checkCursor(value: unknown): string | null {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string" || value.length > 512) throw invalid("cursor", "must be a cursor from a previous page");
  return value;
}
