import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { rejectUnknownOptions, type OptionShape } from "../config/closed-options.ts";
import type { Permissions } from "../ports/records.ts";
import { normalizePermissions } from "./permissions.ts";
import { API_KEY_LIMITS } from "./limits.ts";

/**
 * Options of `apiKeys({...})`. Every field is optional; the defaults suit automation (no quota, no limit, no expiry).
 *
 * @example
 * apiKeys({ defaultPrefix: "acme_", defaultRateLimitMax: 100, defaultRateLimitWindow: "1m", grantablePermissions: { files: ["read"] } });
 */
export interface ApiKeysOptions {
  /** Prefix of new keys when create omits one: 1..16 of `A-Z a-z 0-9 _`. Default `"lk_"`. */
  defaultPrefix?: string;
  /** Uses a new key gets when create omits `remaining`. Default `null` (unlimited). */
  defaultRemaining?: number | null;
  /** Per-key rate limit of new keys: at most this many verifies per `defaultRateLimitWindow`. Default `null` (none). */
  defaultRateLimitMax?: number | null;
  /** Window of the per-key rate limit; required with `defaultRateLimitMax`. Default `null`. */
  defaultRateLimitWindow?: Duration | null;
  /** Lifetime of keys created without `expiresIn`. Default `null` (never expire). */
  defaultExpiresIn?: Duration | null;
  /**
   * Longest lifetime an HTTP caller may ask for with `expiresIn` (asking for `null`, never, is refused too).
   * Default `"365d"`; `null` = no cap. `auth.api.createApiKey` is not capped.
   */
  maxExpiresIn?: Duration | null;
  /** Permissions a signed-in user may put on their own keys over HTTP. Default `{}` (none). */
  grantablePermissions?: Permissions;
  /** Request header carrying the key for `requireApiKey` and `/api-key/verify`. Default `"x-api-key"`. */
  header?: string;
  /** Longest `gracePeriod` a reroll may keep the previous value verifying (at most 90 days). Default `"7d"`. */
  maxRerollGrace?: Duration;
  /** Uses a key gets back every `defaultRefillInterval` when create omits `refillAmount`. Default `null` (no refill). */
  defaultRefillAmount?: number | null;
  /** Refill interval of new keys (at least 1 s); required with `defaultRefillAmount`. Default `null`. */
  defaultRefillInterval?: Duration | null;
  /**
   * `lastUsedAt` of a key is written at most once per this span (keys without a quota or limit are otherwise
   * verified without a write). Default `"1m"`, at most one day.
   */
  lastUsedResolution?: Duration;
  /**
   * Count each key's valid verifies and refusals (by code) per UTC day in the counters port (Redis when
   * configured), for `GET /api-key/usage`. Adds one counter write to every verify. Default `false`.
   */
  usage?: boolean;
  /** How long a day's usage counts are kept (at least 1 day). Default `"90d"`. */
  usageRetention?: Duration;
  /** Most keys one user may hold (create answers 409 `TOO_MANY_KEYS` past it); `null` = no cap. Default `100`. */
  maxPerUser?: number | null;
}

/** `ApiKeysOptions` validated, with defaults filled and durations in milliseconds. */
export interface ResolvedApiKeysOptions {
  defaultPrefix: string;
  defaultRemaining: number | null;
  defaultRateLimitMax: number | null;
  defaultRateLimitWindowMs: number | null;
  defaultExpiresInMs: number | null;
  /** `null`: HTTP callers may ask for any lifetime, or none. */
  maxExpiresInMs: number | null;
  grantablePermissions: Permissions;
  /** Lower-cased header name. */
  header: string;
  /** Longest `gracePeriod` a reroll may ask for. */
  maxRerollGraceMs: number;
  /** Refill of new keys (both or neither). */
  defaultRefillAmount: number | null;
  defaultRefillIntervalMs: number | null;
  /** A key's `lastUsedAt` is written at most once per this span (unmetered keys). */
  lastUsedResolutionMs: number;
  /** Per-key, per-day verify counts in the counters port. */
  usage: boolean;
  usageRetentionMs: number;
  /** Most keys one user may hold; null = no cap. */
  maxPerUser: number | null;
}

/** Every key `apiKeys({...})` accepts. A new option is one line here plus its validation below. */
export const API_KEYS_OPTION_SHAPE: OptionShape = {
  defaultPrefix: true,
  defaultRemaining: true,
  defaultRateLimitMax: true,
  defaultRateLimitWindow: true,
  defaultExpiresIn: true,
  maxExpiresIn: true,
  grantablePermissions: true,
  header: true,
  maxRerollGrace: true,
  defaultRefillAmount: true,
  defaultRefillInterval: true,
  lastUsedResolution: true,
  usage: true,
  usageRetention: true,
  maxPerUser: true,
};

export const API_KEY_PREFIX_SHAPE = new RegExp(`^[A-Za-z0-9_]{1,${API_KEY_LIMITS.prefix}}$`);
/** Largest quota or per-window maximum: fits a signed 32-bit column in every store. */
export const MAX_API_KEY_COUNT = 2_147_483_647;
/** Longest per-key rate-limit window (366 days) and longest lifetime (10 years) a key may get. */
export const MAX_RATE_LIMIT_WINDOW_MS = 366 * 86_400_000;
export const MAX_API_KEY_LIFETIME_MS = 3650 * 86_400_000;
/** Shortest refill interval: a refill is a write, and a shorter one is a rate limit (use `rateLimitMax`). */
export const MIN_REFILL_INTERVAL_MS = 1000;
/** Longest a day's usage counts may be kept, and the most `lastUsedAt` may lag. */
const MAX_USAGE_RETENTION_MS = 366 * 86_400_000;
const MAX_LAST_USED_RESOLUTION_MS = 86_400_000;
const MAX_REROLL_GRACE_MS = 90 * 86_400_000;
/** Default cap on the lifetime an HTTP caller may ask for. */
const DEFAULT_MAX_EXPIRES_IN = "365d";

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// These already carry sessions; sharing them with API keys would make every credential ambiguous.
const RESERVED_HEADERS = new Set(["authorization", "cookie"]);

function count(value: unknown, field: string, min: number): number | null {
  if (value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > MAX_API_KEY_COUNT) {
    throw new AuthConfigError(field, `must be null or an integer from ${min} to ${MAX_API_KEY_COUNT}`);
  }
  return value;
}

function optionalDuration(value: Duration | null, field: string, maxMs: number): number | null {
  if (value === null) return null;
  const ms = parseDuration(value, field);
  if (ms > maxMs) throw new AuthConfigError(field, `must be at most ${maxMs / 86_400_000} days`);
  return ms;
}

/**
 * Validates `apiKeys({...})` options and fills the defaults. Throws `AuthConfigError` naming `apiKeys.<field>`.
 *
 * @example
 * import { resolveApiKeysOptions } from "@latchkey/core";
 * resolveApiKeysOptions({ defaultPrefix: "acme_" }).header; // "x-api-key"
 */
export function resolveApiKeysOptions(options: ApiKeysOptions = {}): ResolvedApiKeysOptions {
  if (options === null || typeof options !== "object")
    throw new AuthConfigError("apiKeys", "options must be an object");
  rejectUnknownOptions(options, API_KEYS_OPTION_SHAPE, "apiKeys");
  const defaultPrefix = options.defaultPrefix ?? "lk_";
  if (typeof defaultPrefix !== "string" || !API_KEY_PREFIX_SHAPE.test(defaultPrefix)) {
    throw new AuthConfigError(
      "apiKeys.defaultPrefix",
      `must be 1 to ${API_KEY_LIMITS.prefix} characters of A-Z a-z 0-9 _`,
    );
  }
  // A zero default quota would make every key created over HTTP unusable: surely a mistake.
  const defaultRemaining = count(options.defaultRemaining ?? null, "apiKeys.defaultRemaining", 1);
  const defaultRateLimitMax = count(options.defaultRateLimitMax ?? null, "apiKeys.defaultRateLimitMax", 1);
  const defaultRateLimitWindowMs = optionalDuration(
    options.defaultRateLimitWindow ?? null,
    "apiKeys.defaultRateLimitWindow",
    MAX_RATE_LIMIT_WINDOW_MS,
  );
  if (defaultRateLimitMax !== null && defaultRateLimitWindowMs === null) {
    throw new AuthConfigError("apiKeys.defaultRateLimitWindow", "is required when apiKeys.defaultRateLimitMax is set");
  }
  if (defaultRateLimitMax === null && defaultRateLimitWindowMs !== null) {
    throw new AuthConfigError("apiKeys.defaultRateLimitMax", "is required when apiKeys.defaultRateLimitWindow is set");
  }
  const defaultExpiresInMs = optionalDuration(
    options.defaultExpiresIn ?? null,
    "apiKeys.defaultExpiresIn",
    MAX_API_KEY_LIFETIME_MS,
  );
  const maxExpiresInMs = optionalDuration(
    options.maxExpiresIn === undefined ? DEFAULT_MAX_EXPIRES_IN : options.maxExpiresIn,
    "apiKeys.maxExpiresIn",
    MAX_API_KEY_LIFETIME_MS,
  );
  if (defaultExpiresInMs !== null && maxExpiresInMs !== null && defaultExpiresInMs > maxExpiresInMs) {
    throw new AuthConfigError("apiKeys.defaultExpiresIn", "must not be longer than apiKeys.maxExpiresIn");
  }
  const grantable = normalizePermissions(options.grantablePermissions ?? {});
  if (!grantable.ok) throw new AuthConfigError("apiKeys.grantablePermissions", grantable.message);
  const header = options.header ?? "x-api-key";
  if (typeof header !== "string" || !HEADER_NAME.test(header))
    throw new AuthConfigError("apiKeys.header", "must be a valid HTTP header name");
  if (RESERVED_HEADERS.has(header.toLowerCase()))
    throw new AuthConfigError("apiKeys.header", `cannot be "${header}" (it carries sessions)`);
  const maxRerollGraceMs = optionalDuration(
    options.maxRerollGrace ?? "7d",
    "apiKeys.maxRerollGrace",
    MAX_REROLL_GRACE_MS,
  ) as number;
  const defaultRefillAmount = count(options.defaultRefillAmount ?? null, "apiKeys.defaultRefillAmount", 1);
  const defaultRefillIntervalMs = optionalDuration(
    options.defaultRefillInterval ?? null,
    "apiKeys.defaultRefillInterval",
    MAX_RATE_LIMIT_WINDOW_MS,
  );
  if ((defaultRefillAmount === null) !== (defaultRefillIntervalMs === null)) {
    throw new AuthConfigError(
      defaultRefillAmount === null ? "apiKeys.defaultRefillAmount" : "apiKeys.defaultRefillInterval",
      "and its partner (defaultRefillAmount, defaultRefillInterval) must be set together",
    );
  }
  if (defaultRefillIntervalMs !== null && defaultRefillIntervalMs < MIN_REFILL_INTERVAL_MS)
    throw new AuthConfigError("apiKeys.defaultRefillInterval", "must be at least 1 second");
  const lastUsedResolutionMs = optionalDuration(
    options.lastUsedResolution ?? "1m",
    "apiKeys.lastUsedResolution",
    MAX_LAST_USED_RESOLUTION_MS,
  ) as number;
  const usage = options.usage ?? false;
  if (typeof usage !== "boolean") throw new AuthConfigError("apiKeys.usage", "must be a boolean");
  const usageRetentionMs = optionalDuration(
    options.usageRetention ?? "90d",
    "apiKeys.usageRetention",
    MAX_USAGE_RETENTION_MS,
  ) as number;
  if (usageRetentionMs < 86_400_000) throw new AuthConfigError("apiKeys.usageRetention", "must be at least 1 day");
  const maxPerUser = count(options.maxPerUser === undefined ? 100 : options.maxPerUser, "apiKeys.maxPerUser", 1);
  return {
    defaultPrefix,
    defaultRemaining,
    defaultRateLimitMax,
    defaultRateLimitWindowMs,
    defaultExpiresInMs,
    maxExpiresInMs,
    grantablePermissions: grantable.value,
    header: header.toLowerCase(),
    maxRerollGraceMs,
    defaultRefillAmount,
    defaultRefillIntervalMs,
    lastUsedResolutionMs,
    usage,
    usageRetentionMs,
    maxPerUser,
  };
}
