import type { Duration } from "../config/duration.ts";
import type { JsonObject, Permissions } from "../ports/records.ts";
import type { ApiKeyView } from "./view.ts";
import type { ApiKeyUsageDay } from "./usage.ts";

/** `auth.api.createApiKey`: trusted code may create keys for any user with any quota, limit and permissions. */
export interface CreateApiKeyInput {
  userId: string;
  name?: string | null;
  /** 1..16 of `A-Z a-z 0-9 _`; default `apiKeys({ defaultPrefix })`. */
  prefix?: string;
  /** Lifetime; `null` never expires. Default `defaultExpiresIn`. */
  expiresIn?: Duration | null;
  metadata?: JsonObject;
  /** Data only trusted code writes (read-only to the owner). Default `{}`. */
  serverMetadata?: JsonObject;
  permissions?: Permissions;
  /** `false` creates the key disabled and locked (its owner cannot enable it). */
  enabled?: boolean;
  /** Uses; `null` unlimited. Default `defaultRemaining`, or `refillAmount` when the key refills. */
  remaining?: number | null;
  /** Uses `remaining` is set back to every `refillInterval` (both or neither). Defaults `defaultRefillAmount` / `defaultRefillInterval`. */
  refillAmount?: number | null;
  /** At least 1 s. */
  refillInterval?: Duration | null;
  /** Per-key rate limit (both or neither); `null` none. Defaults `defaultRateLimitMax` / `defaultRateLimitWindow`. */
  rateLimitMax?: number | null;
  rateLimitWindow?: Duration | null;
  /**
   * An organization `userId` is a member of (`organizations()`): the key acts for it, its permissions capped on
   * every verify by the member's current role there. Else 404 `ORGANIZATION_NOT_FOUND`.
   */
  organizationId?: string | null;
}

/** What a signed-in user may send to `POST /api-key/create`. Other named fields are checked for server-only ones. */
export interface CallerCreateApiKeyInput {
  name?: string | null;
  prefix?: string;
  /** Seconds or a compact duration (checked at runtime); at most `maxExpiresIn` when that is set. Omitted: `defaultExpiresIn`. */
  expiresIn?: Duration | string | null;
  metadata?: JsonObject;
  permissions?: Permissions;
  /** `false` creates the key disabled; the owner may enable it later (it is not `locked`). Default true. */
  enabled?: boolean;
  /**
   * An organization the caller is a member of whose role grants `apiKey: ["create"]`; `permissions` must then be
   * within the role's statements (instead of `grantablePermissions`).
   */
  organizationId?: string | null;
  [field: string]: unknown;
}

/** The only answer that ever carries the plaintext key. */
export interface CreateApiKeyResult {
  apiKey: ApiKeyView;
  key: string;
}

export interface VerifyApiKeyInput {
  key: string | null | undefined;
  /** Required permissions (all-of). */
  permissions?: Permissions | null;
}

export interface UpdateApiKeyInput {
  keyId: string;
  /** When set, only that user's key is updated (another user's key is KEY_NOT_FOUND). */
  userId?: string | null;
  name?: string | null;
  /** `false` disables and locks the key (its owner gets 403 KEY_LOCKED enabling it); `true` enables and unlocks it. */
  enabled?: boolean;
  metadata?: JsonObject;
  serverMetadata?: JsonObject;
  permissions?: Permissions;
  remaining?: number | null;
  /** Both or neither; `null` stops refilling. Setting a refill on a key without one starts its interval now. */
  refillAmount?: number | null;
  refillInterval?: Duration | null;
  rateLimitMax?: number | null;
  rateLimitWindow?: Duration | null;
  /** New lifetime counted from now; `null` never expires. */
  expiresIn?: Duration | null;
}

/** What a signed-in owner may send to `POST /api-key/update`. */
export interface CallerUpdateApiKeyInput {
  keyId: string;
  name?: string | null;
  enabled?: boolean;
  metadata?: JsonObject;
  permissions?: Permissions;
  [field: string]: unknown;
}

/** `auth.api.rerollApiKey`: a new value for the key, the old one verifying for `gracePeriod`. */
export interface RerollApiKeyInput {
  keyId: string;
  /** When set, only that user's key (another user's key is KEY_NOT_FOUND). */
  userId?: string | null;
  /** How long the replaced value keeps verifying: seconds or a compact duration, at most `maxRerollGrace`. Default 0. */
  gracePeriod?: Duration | string | null;
}

/** `auth.api.getApiKeyUsage`: the last `days` UTC days (default 30, at most the retention) of one key. */
export interface ApiKeyUsageInput {
  keyId: string;
  userId?: string | null;
  days?: number | null;
}

export interface ApiKeyUsage {
  /** Oldest first, today (UTC) last. */
  days: ApiKeyUsageDay[];
}

export interface ApiKeyPage {
  apiKeys: ApiKeyView[];
  nextCursor: string | null;
}
