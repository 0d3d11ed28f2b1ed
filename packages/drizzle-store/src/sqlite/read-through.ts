import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";

// Kept apart from file-reads.ts, which loads the libsql engine: the port implementations import only this file, so
// a store without a lookup connection (D1 in a Worker) bundles no libSQL code.

/** The drizzle handle of a `file:` store's engine connections (the `libsql` engine, better-sqlite3 API). */
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
  /**
   * A third connection that may write, for the one hot single-statement write (an API key's conditional use),
   * opened on first use; null as for `connection()`. Its statements run synchronously, like the client's batches.
   */
  writer(): Promise<SqliteReadDatabase | null>;
  /**
   * Waits until no client transaction of this store is open and keeps new ones from starting until the returned
   * release is called. A synchronous write while a transaction holds SQLite's write lock would spin in the busy
   * handler on the very thread the transaction needs to finish.
   */
  holdWrites(): Promise<() => void>;
  /**
   * The writer connection as the store's transactions use it (see store.ts), opened on first use; null as for
   * `writer()`. The ports' prepared statements are compiled there once, and BEGIN, COMMIT and ROLLBACK, where the
   * client compiles every statement of every call again.
   */
  transactions(): Promise<EngineTransactions | null>;
  /**
   * The writer connection's drizzle when it is open and no transaction is open on it, else null. Lookups run there
   * then: SQLite drops a connection's page cache when another connection wrote, so after the store's writes (all on
   * the writer) a lookup on the writer finds its pages cached where the read connection reads them again.
   */
  idleWriter(): SqliteReadDatabase | null;
  /** Closes the engine connections, if they were opened. */
  close(): Promise<void>;
}

/**
 * Write transactions on the writer connection. The caller keeps every other statement of the store out while one
 * is open (the store's gate): the engine runs each statement synchronously on this thread.
 */
export interface EngineTransactions {
  /** drizzle over the writer connection. */
  db: SqliteReadDatabase;
  /** `BEGIN IMMEDIATE`: takes SQLite's write lock now (waiting up to the busy timeout for another process). */
  begin(): void;
  commit(): void;
  /** Rolls back the open transaction; nothing when none is open (SQLite may have rolled it back itself). */
  rollback(): void;
}

/** A prepared statement on an engine connection: drizzle's sync prepared query, bound per call. */
// `get` is one native call that binds, steps once and resets; `all` iterates in JS over batches of native rows.
// `get` serves the lookups of at most one row (unique key) and the writes of one row by id; `all` the rest.
type OneRowStatement<Values, Row> = { get(values: Values): Row | undefined };
/** A prepared statement whose every row is read (`all` iterates over batches of native rows). */
type RowsStatement<Values, Row> = { all(values: Values): Row[] };
const oneRow = <Values, Row>(statement: OneRowStatement<Values, Row>, values: Values): Row[] => {
  const row = statement.get(values);
  return row === undefined ? [] : [row];
};

/**
 * A statement of at most one row, as the rows the ports read: drizzle's `get` steps it once, where `all` reads
 * the rows in batches (on the engine, a JavaScript iterator over a native row buffer per call).
 *
 * @example
 * const consume = oneRowOf(db.delete(verifications).where(idIs).returning().prepare());
 */
export function oneRowOf<Values, Row>(statement: {
  get(values: Values): Row | undefined | Promise<Row | undefined>;
}): (values: Values) => Promise<Row[]> {
  return async (values) => {
    const row = await statement.get(values);
    return row === undefined ? [] : [row];
  };
}

/**
 * A lookup run through a statement prepared once on the writer connection while that one is open and idle (see
 * `FileReads.idleWriter`), else on the read connection, or through `fallback` (the client) when there is none. A
 * statement that cannot be prepared yet (tables not migrated) is tried again on the next call.
 *
 * @example
 * const findByHash = readThrough(reads, (rdb) => rdb.select().from(apiKeys).where(eq(apiKeys.keyHash, sql.placeholder("value"))).prepare(), (v) => byHash.all(v));
 */
export function readThrough<Values, Row>(
  reads: FileReads | null,
  build: (db: SqliteReadDatabase) => OneRowStatement<Values, Row>,
  fallback: (values: Values) => Promise<Row[]>,
): (values: Values) => Promise<Row[]> {
  return readWith(reads, build, oneRow, fallback);
}

/**
 * `readThrough` for a lookup of several rows (the counters of a lockout check, of a usage report): every row is
 * read, where `readThrough` steps its statement once.
 *
 * @example
 * const peekMany = readRowsThrough(reads, (rdb) => rdb.select().from(counters).where(anyLive).prepare(), (v) => viaClient.all(v));
 */
export function readRowsThrough<Values, Row>(
  reads: FileReads | null,
  build: (db: SqliteReadDatabase) => RowsStatement<Values, Row>,
  fallback: (values: Values) => Promise<Row[]>,
): (values: Values) => Promise<Row[]> {
  return readWith(reads, build, (statement, values) => statement.all(values), fallback);
}

function readWith<Values, Row, Statement>(
  reads: FileReads | null,
  build: (db: SqliteReadDatabase) => Statement,
  rowsOf: (statement: Statement, values: Values) => Row[],
  fallback: (values: Values) => Promise<Row[]>,
): (values: Values) => Promise<Row[]> {
  const onReader = throughConnection(reads && (() => reads.connection()), null, build, rowsOf, fallback);
  if (reads === null) return onReader;
  let onWriter: Statement | null = null;
  return async (values) => {
    const writer = reads.idleWriter();
    if (writer === null) return onReader(values);
    try {
      onWriter ??= build(writer);
    } catch {
      return onReader(values);
    }
    return rowsOf(onWriter, values);
  };
}

/**
 * A single-statement write (`UPDATE ... RETURNING`) through a statement prepared once on the writer connection, or
 * through `fallback` (the client) when there is none. Only for a statement that is atomic on its own; it runs
 * between the store's transactions, never during one.
 *
 * @example
 * const use = writeThrough(reads, (wdb) => wdb.update(apiKeys).set(...).where(...).returning().prepare(), (v) => viaClient.all(v));
 */
export function writeThrough<Values, Row>(
  reads: FileReads | null,
  build: (db: SqliteReadDatabase) => OneRowStatement<Values, Row>,
  fallback: (values: Values) => Promise<Row[]>,
): (values: Values) => Promise<Row[]> {
  return throughWriter(reads, build, oneRow, fallback);
}

/**
 * `writeThrough` for a single-statement write that answers several rows (an upsert of two counters).
 *
 * @example
 * const hitTwo = writeRowsThrough(reads, (wdb) => wdb.insert(counters).select(...).returning().prepare(), (v) => viaClient.all(v));
 */
export function writeRowsThrough<Values, Row>(
  reads: FileReads | null,
  build: (db: SqliteReadDatabase) => RowsStatement<Values, Row>,
  fallback: (values: Values) => Promise<Row[]>,
): (values: Values) => Promise<Row[]> {
  return throughWriter(reads, build, (statement, values) => statement.all(values), fallback);
}

/** A write on the writer connection, between the store's transactions (the gate held while it runs). */
function throughWriter<Values, Row, Statement>(
  reads: FileReads | null,
  build: (db: SqliteReadDatabase) => Statement,
  rowsOf: (statement: Statement, values: Values) => Row[],
  fallback: (values: Values) => Promise<Row[]>,
): (values: Values) => Promise<Row[]> {
  return throughConnection(
    reads && (() => reads.writer()),
    reads && (() => reads.holdWrites()),
    build,
    rowsOf,
    fallback,
  );
}

function throughConnection<Values, Row, Statement>(
  connection: (() => Promise<SqliteReadDatabase | null>) | null,
  hold: (() => Promise<() => void>) | null,
  build: (db: SqliteReadDatabase) => Statement,
  rowsOf: (statement: Statement, values: Values) => Row[],
  fallback: (values: Values) => Promise<Row[]>,
): (values: Values) => Promise<Row[]> {
  if (connection === null) return fallback;
  let statement: Statement | null = null;
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
    const release = hold ? await hold() : null;
    try {
      return rowsOf(statement, values);
    } finally {
      release?.();
    }
  };
}
