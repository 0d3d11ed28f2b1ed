export { generateSecret } from "./secret/index.ts";
export { runCli } from "./cli.ts";
export { migrate } from "./migrate/index.ts";
export type { MigrateOptions } from "./migrate/index.ts";
