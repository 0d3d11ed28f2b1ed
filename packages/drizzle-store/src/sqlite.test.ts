import { runStoreConformance } from "@latchkey/store-conformance";
import { afterAll } from "vitest";
import { drizzleStore } from "./drizzle-store.ts";
import { migrateDatabase } from "./migrate.ts";
import { createTestSqliteFile, type TestDatabase } from "./testing/index.ts";

let database: TestDatabase | undefined;
afterAll(() => database?.dispose());

runStoreConformance({
  name: "libsql",
  async createStore() {
    database = await createTestSqliteFile();
    await migrateDatabase(database.url);
    return drizzleStore({ dialect: "sqlite", url: database.url });
  },
});
