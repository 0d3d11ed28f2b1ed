import { runStoreConformance } from "@latchkey/store-conformance";
import { afterAll, expect, it } from "vitest";
import { drizzleStore, migrateDatabase } from "./postgres.ts";
import { createTestPostgresDatabase, testPostgresUrl, type TestDatabase } from "@latchkey/test-support";

let database: TestDatabase | undefined;
afterAll(() => database?.dispose());

// Fails, rather than skips, when the global setup could not start a server: a skipped database suite proves nothing.
it("has a PostgreSQL server to run against", () => expect(testPostgresUrl()).toMatch(/^postgres(ql)?:\/\//));

runStoreConformance({
  name: "postgres",
  async createStore() {
    database = await createTestPostgresDatabase();
    await migrateDatabase(database.url);
    return drizzleStore({ dialect: "postgres", url: database.url });
  },
});
