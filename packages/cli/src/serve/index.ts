export { serveCommand } from "./command.ts";
export { CONFIG_FILES, ConfigError, loadConfig, resolveConfigPath } from "./config.ts";
export { DatabaseWaitError, startServer } from "./server.ts";
export type { RunningServer, ServerSettings } from "./server.ts";
