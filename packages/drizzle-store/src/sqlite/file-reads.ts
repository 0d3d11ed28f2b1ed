import type { Client } from "@libsql/client";
import { BetterSQLiteSession } from "drizzle-orm/better-sqlite3/session";
import { BaseSQLiteDatabase, SQLiteSyncDialect } from "drizzle-orm/sqlite-core";

/** The read-only drizzle handle of a `file:` store's lookup connection (the `libsql` engine, better-sqlite3 API). */
export type SqliteReadDatabase = BaseSQLiteDatabase<"sync", unknown>;

// drizzle's better-sqlite3 session over the libsql engine; its `drizzle()` entry imports better-sqlite3 itself.
function syncDrizzle(connection: Native): SqliteReadDatabase {
  const dialect = new SQLiteSyncDialect();
  return new BaseSQLiteDatabase("sync", dialect, new BetterSQLiteSession(connection as never, dialect, undefined), undefined);
}

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
  /**
   * A third connection that may write, for the one hot single-statement write (an API key's conditional use),
   * opened on first use; null as for `connection()`. Its statements run synchronously, like the client's batches,
   * so inside the process a write here never interleaves with a client transaction; across processes SQLite's
   * lock and the busy timeout order them as they do the client's.
   */
  writer(): Promise<SqliteReadDatabase | null>;
  /** Closes the lookup connection, if it was opened. */
  close(): Promise<void>;
}

type Native = { prepare(sql: string): unknown; exec(sql: string): unknown; close(): void };

/** Opens lookup connections to the file behind `client` (a `file:` client whose setup has set WAL mode). */
export function fileReads(client: Client): FileReads {
  let native: Native | null = null;
  let nativeWriter: Native | null = null;
  let closed = false;
  let opening: Promise<SqliteReadDatabase | null> | null = null;
  let openingWriter: Promise<SqliteReadDatabase | null> | null = null;
  const openWriter = async (): Promise<SqliteReadDatabase | null> => {
    try {
      const path = await filePath(client);
      if (path === null || closed) return null;
      const { default: Database } = await import("libsql");
      const connection = new Database(path, { timeout: 5000 }) as unknown as Native;
      // synchronous is per connection: the same setting as the client's (FILE_PRAGMAS in store.ts).
      connection.exec("PRAGMA synchronous = NORMAL");
      nativeWriter = connection;
      return syncDrizzle(connection);
    } catch {
      return null;
    }
  };
  const open = async (): Promise<SqliteReadDatabase | null> => {
    try {
      const path = await filePath(client);
      if (path === null || closed) return null;
      const { default: Database } = await import("libsql");
      const connection = new Database(path, { timeout: 5000 }) as unknown as Native;
      // Only lookups run here; query_only makes a stray write fail instead of bypassing the client's batches.
      connection.exec("PRAGMA query_only = ON");
      native = connection;
      return syncDrizzle(connection);
    } catch {
      // No engine (or no file): every lookup keeps going through the client.
      return null;
    }
  };
  return {
    connection: () => (opening ??= open()),
    writer: () => (openingWriter ??= openWriter()),
    async close() {
      closed = true;
      await opening;
      await openingWriter;
      native?.close();
      native = null;
      nativeWriter?.close();
      nativeWriter = null;
    },
  };
}

// The client's first statement runs its setup (WAL) first; the file's absolute path comes from SQLite itself.
async function filePath(client: Client): Promise<string | null> {
  const list = await client.execute("PRAGMA database_list");
  const path = list.rows.find((row) => row["name"] === "main")?.["file"];
  return typeof path === "string" && path !== "" ? path : null;
}

/** A prepared lookup on the read connection: drizzle's sync prepared query, bound per call. */
// `get` is one native call that binds, steps once and resets; `all` iterates in JS over batches of native rows.
// Every statement run here is a lookup of at most one row (unique key) or a write of one row by id.
type ReadStatement<Values, Row> = { get(values: Values): Row | undefined };

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
  return throughConnection(reads && (() => reads.connection()), build, fallback);
}

/**
 * A single-statement write (`UPDATE ... RETURNING`) through a statement prepared once on the writer connection, or
 * through `fallback` (the client) when there is none. Only for a statement that is atomic on its own.
 *
 * @example
 * const use = writeThrough(reads, (wdb) => wdb.update(apiKeys).set(...).where(...).returning().prepare(), (v) => viaClient.all(v));
 */
export function writeThrough<Values, Row>(
  reads: FileReads | null,
  build: (db: SqliteReadDatabase) => ReadStatement<Values, Row>,
  fallback: (values: Values) => Promise<Row[]>,
): (values: Values) => Promise<Row[]> {
  return throughConnection(reads && (() => reads.writer()), build, fallback);
}

function throughConnection<Values, Row>(
  connection: (() => Promise<SqliteReadDatabase | null>) | null,
  build: (db: SqliteReadDatabase) => ReadStatement<Values, Row>,
  fallback: (values: Values) => Promise<Row[]>,
): (values: Values) => Promise<Row[]> {
  if (connection === null) return fallback;
  let statement: ReadStatement<Values, Row> | null = null;
  return async (values) => {
    if (statement === null) {
      const db = await connection();
      if (db === null) return fallback(values);
      try {
        statement = build(db);
      } catch {
        return fallback(values);
      }
    }
    const row = statement.get(values);
    return row === undefined ? [] : [row];
  };
}
