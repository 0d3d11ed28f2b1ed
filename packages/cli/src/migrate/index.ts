export { migrate, migrateCommand } from "./migrate.ts";
export type { MigrateOptions } from "./migrate.ts";
export { migrateLocalD1 } from "./d1.ts";
export type { LocalD1Options } from "./d1.ts";
