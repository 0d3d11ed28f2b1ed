import { orServerCall, type RequestMeta } from "../kernel/request-meta.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../kernel/plugin.ts";
import { ApiKeyService } from "./api-key.ts";
import type { Duration } from "../config/duration.ts";
import type { Permissions } from "../ports/records.ts";
import { resolveApiKeysOptions, type ResolvedApiKeysOptions } from "./options.ts";
import type { ApiKeyVerifyResult, ApiKeyView } from "./view.ts";
import type {
  ApiKeyPage,
  ApiKeyUsage,
  ApiKeyUsageInput,
  RerollApiKeyInput,
  CreateApiKeyInput,
  CreateApiKeyResult,
  UpdateApiKeyInput,
  VerifyApiKeyInput,
} from "./types.ts";

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
  /**
   * A new value for a key (same id and settings), shown once; the old value verifies for `gracePeriod`
   * (default 0). Emits `ApiKeyRerolled`.
   */
  rerollApiKey(input: RerollApiKeyInput, meta?: RequestMeta): Promise<CreateApiKeyResult>;
  /** Forgets the hashes of rerolled values whose grace ended (a periodic sweep calls this). */
  deleteExpiredRerolls(): Promise<{ cleared: number }>;
  /** Per-day valid verifies and refusals by code of one key; needs `apiKeys({ usage: true })`. */
  getApiKeyUsage(input: ApiKeyUsageInput): Promise<ApiKeyUsage>;
}
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

/** What `apiKeys()` installs: `core.plugins.get(API_KEY_PLUGIN_ID)`. */
export type ApiKeysInstalled = InstalledPlugin<ApiKeyService, ApiKeyApi, ResolvedApiKeysOptions>;

/**
 * The id `apiKeys()` installs under, typed with what it installs.
 *
 * @example
 * const { service, options } = auth.core.plugins.get(API_KEY_PLUGIN_ID)!;
 */
export const API_KEY_PLUGIN_ID = "api-key" as PluginId<"api-key", ApiKeysInstalled>;

/**
 * @example
 * const plugin: ApiKeysPlugin = apiKeys();
 */
export type ApiKeysPlugin = AuthPlugin<"api-key", ApiKeysInstalled, "apiKeys">;

/**
 * The API-key feature: `POST /api-key/create|verify|update|reroll|delete|delete-all-expired`,
 * `GET /api-key/list|usage`,
 * `auth.requireApiKey()` and `auth.api.*ApiKey*`. Needs a store with the `apiKeys` port. Options are validated
 * here (AuthConfigError `apiKeys.<field>`).
 *
 * @example
 * import { apiKeys } from "@latchkey/core";
 * const auth = createAuth({ secret, database, baseUrl, plugins: [apiKeys({ grantablePermissions: { files: ["read"] } })] });
 * app.get("/files", auth.requireApiKey({ permissions: { files: ["read"] } }), (c) => c.json(c.var.apiKey));
 */
export function apiKeys(options: ApiKeysOptions = {}): ApiKeysPlugin {
  const resolved = resolveApiKeysOptions(options);
  return {
    id: API_KEY_PLUGIN_ID,
    requires: ["apiKeys"],
    init(ctx, ports) {
      const service = new ApiKeyService(ctx, resolved, ports.apiKeys);
      const api: ApiKeyApi = {
        createApiKey: (input, meta) => service.create(input, orServerCall(meta)),
        verifyApiKey: (input, meta) => service.verify(input, orServerCall(meta)),
        listApiKeys: (input) => service.list(input.userId, input),
        updateApiKey: (input, meta) => service.update(input, orServerCall(meta)),
        deleteApiKey: (input, meta) => service.delete(input.keyId, input.userId ?? null, orServerCall(meta)),
        deleteExpiredApiKeys: (meta) => service.deleteExpired(null, orServerCall(meta)),
        rerollApiKey: (input, meta) => service.reroll(input, input?.userId ?? null, orServerCall(meta)),
        deleteExpiredRerolls: () => service.deleteExpiredRerolls(),
        getApiKeyUsage: (input) => service.usage(input, input?.userId ?? null),
      };
      return { service, api, options: resolved };
    },
  };
}
