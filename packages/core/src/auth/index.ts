export { createAuthCore } from "./auth-core.ts";
export type { AuthCore } from "./auth-core.ts";
export type { AuthApi, BaseApi, PluginApis } from "./api.ts";
export { resolveConfig, AUTH_SCHEMA, AUTH_OPTION_SHAPE, EMAIL_TEMPLATE_NAMES } from "./options.ts";
export type { AuthOptions } from "./options.ts";
