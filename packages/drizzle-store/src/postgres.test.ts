import { runStoreConformance } from "@latchkey/store-conformance";
import { afterAll } from "vitest";
import { drizzleStore } from "./drizzle-store.ts";
import { migrateDatabase } from "./migrate.ts";
import { createTestPostgresDatabase, type TestDatabase } from "./testing/index.ts";

let database: TestDatabase | undefined;
afterAll(() => database?.dispose());

runStoreConformance({
  name: "postgres",
  async createStore() {
    database = await createTestPostgresDatabase();
    await migrateDatabase(database.url);
    return drizzleStore({ dialect: "postgres", url: database.url });
  },
});
