import type { FullStore } from "@latchkey/core";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { drizzleStore, migrateDatabase } from "../src/sqlite.ts";

// For the tests of a file: store's own connections (src/sqlite/file-*.test.ts, src/sqlite/engine-session.test.ts):
// a migrated libSQL file and a store over it, opened before the tests and closed after them.

/** A fresh libSQL file, migrated, and a store over it (the file is removed again if the migration fails). */
export async function openMigratedFile(): Promise<{ database: TestDatabase; store: FullStore }> {
  const database = await createTestSqliteFile();
  try {
    await migrateDatabase(database.url);
  } catch (error) {
    await database.dispose();
    throw error;
  }
  return { database, store: drizzleStore({ dialect: "sqlite", url: database.url }) };
}

/** Closes what `openMigratedFile` opened (either may be missing when opening failed). */
export async function closeMigratedFile(store: FullStore | undefined, database: TestDatabase | undefined) {
  await store?.close();
  await database?.dispose();
}
