export type { AuthContext } from "./context.ts";
export type { AuthPlugin, ApiOf, InstalledPlugin, PluginId, PluginRegistry } from "./plugin.ts";
export { inTransaction } from "./transaction.ts";
