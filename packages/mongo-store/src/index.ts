export { mongoStore } from "./store.ts";
export type { MongoStoreOptions } from "./store.ts";
export { migrateMongo } from "./migrate.ts";
export type { MigrateMongoOptions } from "./migrate.ts";
