/**
 * Test databases for Latchkey's own tests: a fresh PostgreSQL database on the server the Vitest global setup
 * started, or a temporary SQLite file.
 *
 * @example
 * import { createTestPostgresDatabase } from "@latchkey/test-support";
 */
export { createTestPostgresDatabase, createTestSqliteFile, testPostgresUrl } from "./test-databases.ts";
export type { TestDatabase, TestPostgresServerName } from "./test-databases.ts";
