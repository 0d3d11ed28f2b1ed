export { createAuthCore } from "./auth-core.ts";
export type { AuthCore } from "./auth-core.ts";
export type { AuthApi, BaseApi, PluginApis } from "./api.ts";
