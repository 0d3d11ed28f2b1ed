import type { Duration } from "../config/duration.ts";
import type { JsonObject, Permissions } from "../ports/records.ts";
import type { ApiKeyView } from "./view.ts";

/** `auth.api.createApiKey`: trusted code may create keys for any user with any quota, limit and permissions. */
export interface CreateApiKeyInput {
  userId: string;
  name?: string | null;
  /** 1..16 of `A-Z a-z 0-9 _`; default `apiKeys({ defaultPrefix })`. */
  prefix?: string;
  /** Lifetime; `null` never expires. Default `defaultExpiresIn`. */
  expiresIn?: Duration | null;
  metadata?: JsonObject;
  permissions?: Permissions;
  enabled?: boolean;
  /** Uses; `null` unlimited. Default `defaultRemaining`. */
  remaining?: number | null;
  /** Per-key rate limit (both or neither); `null` none. Defaults `defaultRateLimitMax` / `defaultRateLimitWindow`. */
  rateLimitMax?: number | null;
  rateLimitWindow?: Duration | null;
}

/** What a signed-in user may send to `POST /api-key/create`. Other named fields are checked for server-only ones. */
export interface CallerCreateApiKeyInput {
  name?: string | null;
  prefix?: string;
  /** Seconds or a compact duration (checked at runtime); at most `maxExpiresIn` when that is set. Omitted: `defaultExpiresIn`. */
  expiresIn?: Duration | string | null;
  metadata?: JsonObject;
  permissions?: Permissions;
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
  enabled?: boolean;
  metadata?: JsonObject;
  permissions?: Permissions;
  remaining?: number | null;
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

export interface ApiKeyPage {
  apiKeys: ApiKeyView[];
  nextCursor: string | null;
}
