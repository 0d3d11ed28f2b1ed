export { migrate, migrateCommand } from "./migrate.ts";
export type { MigrateOptions, MongoMigrator } from "./migrate.ts";
