import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { applySchema, defaulted, flag, shapeOf, type InputOf } from "../config/schema.ts";
import type { Permissions } from "../ports/records.ts";
import { normalizePermissions } from "./permissions.ts";
import { API_KEY_LIMITS } from "./limits.ts";

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
  /** `POST /api-key/create` is open to signed-in users (else 403 KEY_CREATION_DISABLED). */
  httpCreate: boolean;
}

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

const positiveCount = (value: number | null, field: string) => void count(value, field, 1);
const durationAtMost = (maxMs: number) => (value: Duration | null, field: string) =>
  void optionalDuration(value, field, maxMs);

/** The one definition of `apiKeys({...})`'s options: type, default, check, docs row (docs/options.md). */
export const API_KEYS_SCHEMA = {
  /** prefix of new keys when create omits one: 1 to 16 of `A-Z a-z 0-9 _` */
  defaultPrefix: defaulted<string>("lk_", {
    check: (v, field) => {
      if (typeof v !== "string" || !API_KEY_PREFIX_SHAPE.test(v))
        throw new AuthConfigError(field, `must be 1 to ${API_KEY_LIMITS.prefix} characters of A-Z a-z 0-9 _`);
    },
  }),
  /**
   * quota (uses) of new keys when create omits `remaining`; positive integer when set
   * @defaultValue `null` (unlimited)
   */
  defaultRemaining: defaulted<number | null>(null, { check: positiveCount }),
  /**
   * per-key rate limit of new keys: at most this many verifies per `defaultRateLimitWindow`; set both or neither
   * @defaultValue `null` (no per-key limit)
   */
  defaultRateLimitMax: defaulted<number | null>(null, { check: positiveCount }),
  /**
   * window of the per-key rate limit of new keys (at most 366 days); set with `defaultRateLimitMax`
   * @defaultValue `null` (no per-key limit)
   */
  defaultRateLimitWindow: defaulted<Duration | null>(null, { check: durationAtMost(MAX_RATE_LIMIT_WINDOW_MS) }),
  /**
   * lifetime of keys created without `expiresIn`; at most 10 years and not over `maxExpiresIn`
   * @defaultValue `null` (never)
   */
  defaultExpiresIn: defaulted<Duration | null>(null, { check: durationAtMost(MAX_API_KEY_LIFETIME_MS) }),
  /**
   * longest `expiresIn` an HTTP caller may ask for (`null`, never, is refused too); `null` = no cap.
   * `auth.api.createApiKey` is not capped
   */
  maxExpiresIn: defaulted<Duration | null>("365d", {
    nullable: true,
    check: durationAtMost(MAX_API_KEY_LIFETIME_MS),
  }),
  /** permissions a signed-in user may put on their own keys over HTTP */
  grantablePermissions: defaulted<Permissions>(
    {},
    {
      check: (v, field) => {
        const grantable = normalizePermissions(v);
        if (!grantable.ok) throw new AuthConfigError(field, grantable.message);
      },
    },
  ),
  /** request header carrying the key, read by `requireApiKey` and `/api-key/verify`; not `authorization` or `cookie` */
  header: defaulted<string>("x-api-key", {
    check: (v, field) => {
      if (typeof v !== "string" || !HEADER_NAME.test(v))
        throw new AuthConfigError(field, "must be a valid HTTP header name");
      if (RESERVED_HEADERS.has(v.toLowerCase()))
        throw new AuthConfigError(field, `cannot be "${v}" (it carries sessions)`);
    },
  }),
  /** longest `gracePeriod` of a reroll (the replaced value verifies that long); at most 90 days */
  maxRerollGrace: defaulted<Duration>("7d", { check: durationAtMost(MAX_REROLL_GRACE_MS) }),
  /**
   * refill of new keys: `remaining` is set back to this amount every `defaultRefillInterval`; set both or neither;
   * a refilling key starts full
   * @defaultValue `null` (no refill)
   */
  defaultRefillAmount: defaulted<number | null>(null, { check: positiveCount }),
  /**
   * interval of the refill of new keys (at least 1 s, at most 366 days); set with `defaultRefillAmount`
   * @defaultValue `null` (no refill)
   */
  defaultRefillInterval: defaulted<Duration | null>(null, { check: durationAtMost(MAX_RATE_LIMIT_WINDOW_MS) }),
  /**
   * `lastUsedAt` of a key without a quota or limit is written at most once per this span (at most one day; keys
   * with one are written on every verify anyway)
   */
  lastUsedResolution: defaulted<Duration>("1m", { check: durationAtMost(MAX_LAST_USED_RESOLUTION_MS) }),
  /**
   * count each key's valid verifies and refusals per UTC day in the counters store (one counter write per verify),
   * for `GET /api-key/usage`
   */
  usage: flag(false),
  /** how long a day's usage counts are kept (1 to 366 days) */
  usageRetention: defaulted<Duration>("90d", {
    check: (v, field) => {
      if ((optionalDuration(v, field, MAX_USAGE_RETENTION_MS) as number) < 86_400_000)
        throw new AuthConfigError(field, "must be at least 1 day");
    },
  }),
  /**
   * most keys one user may hold at once (409 `TOO_MANY_KEYS`); `null` = no cap. Not a lifetime quota: a deleted
   * key frees its place, and a new key starts with a fresh quota
   */
  maxPerUser: defaulted<number | null>(100, { nullable: true, check: positiveCount }),
  /**
   * lets signed-in users create their own keys over `POST /api-key/create`; `false` answers it 403
   * `KEY_CREATION_DISABLED`, so only `auth.api.createApiKey` mints keys (where a per-user quota of your own applies)
   */
  httpCreate: flag(true),
};

/**
 * Options of `apiKeys({...})`. Every field is optional; the defaults suit automation (no quota, no limit, no expiry).
 *
 * @example
 * apiKeys({ defaultPrefix: "acme_", defaultRateLimitMax: 100, defaultRateLimitWindow: "1m", grantablePermissions: { files: ["read"] } });
 */
export type ApiKeysOptions = InputOf<typeof API_KEYS_SCHEMA>;

/** Every key `apiKeys({...})` accepts (from `API_KEYS_SCHEMA`). */
export const API_KEYS_OPTION_SHAPE = shapeOf(API_KEYS_SCHEMA);

/**
 * Validates `apiKeys({...})` options and fills the defaults. Throws `AuthConfigError` naming `apiKeys.<field>`.
 *
 * @example
 * import { resolveApiKeysOptions } from "@latchkey/core";
 * resolveApiKeysOptions({ defaultPrefix: "acme_" }).header; // "x-api-key"
 */
export function resolveApiKeysOptions(options: ApiKeysOptions = {}): ResolvedApiKeysOptions {
  const o = applySchema(API_KEYS_SCHEMA, options, "apiKeys");
  const ms = (value: Duration | null, field: string) =>
    value === null ? null : parseDuration(value, `apiKeys.${field}`);
  const defaultRateLimitWindowMs = ms(o.defaultRateLimitWindow, "defaultRateLimitWindow");
  if (o.defaultRateLimitMax !== null && defaultRateLimitWindowMs === null) {
    throw new AuthConfigError("apiKeys.defaultRateLimitWindow", "is required when apiKeys.defaultRateLimitMax is set");
  }
  if (o.defaultRateLimitMax === null && defaultRateLimitWindowMs !== null) {
    throw new AuthConfigError("apiKeys.defaultRateLimitMax", "is required when apiKeys.defaultRateLimitWindow is set");
  }
  const defaultExpiresInMs = ms(o.defaultExpiresIn, "defaultExpiresIn");
  const maxExpiresInMs = ms(o.maxExpiresIn, "maxExpiresIn");
  if (defaultExpiresInMs !== null && maxExpiresInMs !== null && defaultExpiresInMs > maxExpiresInMs) {
    throw new AuthConfigError("apiKeys.defaultExpiresIn", "must not be longer than apiKeys.maxExpiresIn");
  }
  const defaultRefillIntervalMs = ms(o.defaultRefillInterval, "defaultRefillInterval");
  if ((o.defaultRefillAmount === null) !== (defaultRefillIntervalMs === null)) {
    throw new AuthConfigError(
      o.defaultRefillAmount === null ? "apiKeys.defaultRefillAmount" : "apiKeys.defaultRefillInterval",
      "and its partner (defaultRefillAmount, defaultRefillInterval) must be set together",
    );
  }
  if (defaultRefillIntervalMs !== null && defaultRefillIntervalMs < MIN_REFILL_INTERVAL_MS)
    throw new AuthConfigError("apiKeys.defaultRefillInterval", "must be at least 1 second");
  const grantable = normalizePermissions(o.grantablePermissions);
  if (!grantable.ok) throw new AuthConfigError("apiKeys.grantablePermissions", grantable.message);
  return {
    defaultPrefix: o.defaultPrefix,
    defaultRemaining: o.defaultRemaining,
    defaultRateLimitMax: o.defaultRateLimitMax,
    defaultRateLimitWindowMs,
    defaultExpiresInMs,
    maxExpiresInMs,
    grantablePermissions: grantable.value,
    header: o.header.toLowerCase(),
    maxRerollGraceMs: parseDuration(o.maxRerollGrace, "apiKeys.maxRerollGrace"),
    defaultRefillAmount: o.defaultRefillAmount,
    defaultRefillIntervalMs,
    lastUsedResolutionMs: parseDuration(o.lastUsedResolution, "apiKeys.lastUsedResolution"),
    usage: o.usage,
    usageRetentionMs: parseDuration(o.usageRetention, "apiKeys.usageRetention"),
    maxPerUser: o.maxPerUser,
    httpCreate: o.httpCreate,
  };
}
