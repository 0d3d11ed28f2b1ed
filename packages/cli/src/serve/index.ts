export { serveCommand } from "./command.ts";
export { loadConfig } from "./config.ts";
export { startServer } from "./server.ts";
export type { RunningServer, ServerSettings } from "./server.ts";
