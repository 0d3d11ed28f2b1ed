export { generateSecret } from "./secret/index.ts";
export { runCli } from "./cli.ts";
export { migrate, migrateLocalD1 } from "./migrate/index.ts";
export type { LocalD1Options, MigrateOptions } from "./migrate/index.ts";
export { loadConfig, startServer } from "./serve/index.ts";
export type { RunningServer, ServerSettings } from "./serve/index.ts";
export { sweep } from "./sweep/index.ts";
export type { SweepCliOptions } from "./sweep/index.ts";
