import { orServerCall, type RequestMeta } from "../auth/request-meta.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../auth/plugin.ts";
import { ApiKeyService } from "./api-key.ts";
import type { Duration } from "../config/duration.ts";
import type { Permissions } from "../ports/records.ts";
import { resolveApiKeysOptions, type ResolvedApiKeysOptions } from "./options.ts";
import type { ApiKeyVerifyResult, ApiKeyView } from "./view.ts";
import type {
  ApiKeyPage,
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
 * The API-key feature: `POST /api-key/create|verify|update|delete|delete-all-expired`, `GET /api-key/list`,
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
      };
      return { service, api, options: resolved };
    },
  };
}
