import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";

// Kept apart from file-reads.ts, which loads the libsql engine: the port implementations import only this file, so
// a store without a lookup connection (D1 in a Worker) bundles no libSQL code.

/** The read-only drizzle handle of a `file:` store's lookup connection (the `libsql` engine, better-sqlite3 API). */
export type SqliteReadDatabase = BaseSQLiteDatabase<"sync", unknown>;

/**
 * A second connection to a store's own `file:` database for its hottest read-only lookups. @libsql/client prepares
 * the SQL again on every call; statements prepared here once are only bound and stepped. In WAL mode each read
 * starts a fresh snapshot, and every client write has committed before its promise resolves, so reads see it.
 *
 * @example
 * const reads = fileReads(openSqliteForStore("file:./auth.db"));
 * const byEmail = readThrough(reads, (rdb) => rdb.select().from(users).where(eq(users.email, sql.placeholder("value"))).prepare(), fallback);
 */
export interface FileReads {
  /** The lookup connection, opened on first use; null when the engine cannot load or the database has no file. */
  connection(): Promise<SqliteReadDatabase | null>;
  /** Closes the lookup connection, if it was opened. */
  close(): Promise<void>;
}

/** A prepared lookup on the read connection: drizzle's sync prepared query, bound per call. */
type ReadStatement<Values, Row> = { all(values: Values): Row[] };

/**
 * A lookup run through a statement prepared once on the read connection, or through `fallback` (the client) when
 * there is none. A statement that cannot be prepared yet (tables not migrated) is tried again on the next call.
 *
 * @example
 * const findByHash = readThrough(reads, (rdb) => rdb.select().from(apiKeys).where(eq(apiKeys.keyHash, sql.placeholder("value"))).prepare(), (v) => byHash.all(v));
 */
export function readThrough<Values, Row>(
  reads: FileReads | null,
  build: (db: SqliteReadDatabase) => ReadStatement<Values, Row>,
  fallback: (values: Values) => Promise<Row[]>,
): (values: Values) => Promise<Row[]> {
  if (reads === null) return fallback;
  let statement: ReadStatement<Values, Row> | null = null;
  return async (values) => {
    if (statement === null) {
      const db = await reads.connection();
      if (db === null) return fallback(values);
      try {
        statement = build(db);
      } catch {
        return fallback(values);
      }
    }
    return statement.all(values);
  };
}
