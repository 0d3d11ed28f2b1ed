export { createAuthCore } from "./auth-core.ts";
export type { AuthCore } from "./auth-core.ts";
export type { AuthContext } from "./context.ts";
export type { AuthPlugin, ApiOf, InstalledPlugin, PluginId, PluginRegistry } from "./plugin.ts";
export type { RequestMeta } from "./request-meta.ts";
export { SERVER_CALL, orServerCall } from "./request-meta.ts";
export { normalizeEmail, normalizeUsername, checkPasswordLength, resolveCallbackUrl, withQuery } from "./validation.ts";
export type { AuthApi, BaseApi, PluginApis } from "./api.ts";
export { inTransaction } from "./transaction.ts";
