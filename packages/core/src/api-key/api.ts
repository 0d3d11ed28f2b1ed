import type { Duration } from "../config/duration.ts";
import type { RequestMeta } from "../auth/request-meta.ts";
import type { JsonObject, Permissions } from "../ports/records.ts";
import type { ApiKeyVerifyResult, ApiKeyView } from "./view.ts";

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

/**
 * The API-key operations of `auth.api` (trusted server code, no HTTP).
 *
 * @example
 * const { key } = await auth.api.createApiKey({ userId, name: "nightly export", remaining: 1000, rateLimitMax: 10, rateLimitWindow: "1m" });
 */
export interface ApiKeyApi {
  /** Creates a key for any user; the result is the only place the plaintext `key` appears. */
  createApiKey(input: CreateApiKeyInput, meta?: RequestMeta): Promise<CreateApiKeyResult>;
  /** Same semantics as `POST /api-key/verify`: consumes a use of metered keys. */
  verifyApiKey(input: VerifyApiKeyInput, meta?: RequestMeta): Promise<ApiKeyVerifyResult>;
  listApiKeys(input: { userId: string; limit?: number | null; cursor?: string | null }): Promise<ApiKeyPage>;
  updateApiKey(input: UpdateApiKeyInput, meta?: RequestMeta): Promise<{ apiKey: ApiKeyView }>;
  deleteApiKey(input: { keyId: string; userId?: string | null }, meta?: RequestMeta): Promise<{ success: true }>;
  /** Sweeps the expired keys of every user. */
  deleteExpiredApiKeys(meta?: RequestMeta): Promise<{ deleted: number }>;
}
