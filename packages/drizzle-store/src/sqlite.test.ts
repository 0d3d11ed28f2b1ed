import { runStoreConformance } from "@latchkey/store-conformance";
import { afterAll } from "vitest";
import { drizzleStore, migrateDatabase } from "./sqlite.ts";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";

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
