import { orServerCall, type RequestMeta } from "../kernel/request-meta.ts";
import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";
import { ApiKeyService } from "./api-key.ts";
import { resolveApiKeysOptions, type ResolvedApiKeysOptions, type ApiKeysOptions } from "./options.ts";
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
