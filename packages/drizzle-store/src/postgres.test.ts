import { runStoreConformance } from "@latchkey/store-conformance";
import type { Sql } from "postgres";
import { afterAll, expect, it } from "vitest";
import { drizzleStore, migrateDatabase } from "./postgres.ts";
import { drizzleStore as postgresJsStore } from "./postgres-js.ts";
import { openPostgres } from "./pg/postgres-js.ts";
import { createTestPostgresDatabase, testPostgresUrl, type TestDatabase } from "@latchkey/test-support";

const databases: TestDatabase[] = [];
const clients: Sql[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end({ timeout: 5 })));
  await Promise.all(databases.map((d) => d.dispose()));
});

// Fails, rather than skips, when the global setup could not start a server: a skipped database suite proves nothing.
it("has a PostgreSQL server to run against", () => expect(testPostgresUrl()).toMatch(/^postgres(ql)?:\/\//));
it("has a PostgreSQL 18 server to run against", async () => {
  const major = async (url: string) => {
    const sql = openPostgres(url);
    try {
      return Number((await sql`show server_version_num`)[0]!.server_version_num) / 10_000;
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
  expect(Math.floor(await major(testPostgresUrl("18")))).toBe(18);
});

// node-postgres (the default driver) on the run's server (Debian's PostgreSQL 15 here) and on PostgreSQL 18.
for (const server of ["default", "18"] as const) {
  runStoreConformance({
    name: server === "18" ? "postgres (PostgreSQL 18)" : "postgres",
    async createStore() {
      const database = await createTestPostgresDatabase(server);
      databases.push(database);
      await migrateDatabase(database.url);
      return drizzleStore({ dialect: "postgres", url: database.url });
    },
  });
}

// The postgres.js entry (`@latchkey/drizzle-store/postgres-js`) over a client the test owns.
runStoreConformance({
  name: "postgres (postgres.js)",
  async createStore() {
    const database = await createTestPostgresDatabase();
    databases.push(database);
    await migrateDatabase(database.url);
    const client = openPostgres(database.url);
    clients.push(client);
    return postgresJsStore({ client });
  },
});
