import type { Client } from "@libsql/client";
import { BaseSQLiteDatabase, SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { EngineSession, type EngineConnection } from "./engine-session.ts";
import type { EngineTransactions, FileReads, SqliteReadDatabase } from "./read-through.ts";

export { readThrough, writeThrough, type FileReads } from "./read-through.ts";

// drizzle's sync database over the libsql engine, through the lean session (engine-session.ts); drizzle's own
// `drizzle()` entry for better-sqlite3 would import better-sqlite3 itself.
function syncDrizzle(connection: Native): SqliteReadDatabase {
  const dialect = new SQLiteSyncDialect();
  return new BaseSQLiteDatabase("sync", dialect, new EngineSession(connection, dialect), undefined);
}

type Native = EngineConnection & {
  exec(sql: string): unknown;
  close(): void;
  readonly inTransaction: boolean;
};

// With no store gate (a client used on its own, as in tests), a write waits for nothing.
const NO_GATE = async (): Promise<() => void> => () => undefined;

/**
 * Opens engine connections to the file behind `client` (a `file:` client whose setup has set WAL mode).
 * `holdWrites` is the store's transaction gate (see `FileReads.holdWrites`).
 */
export function fileReads(client: Client, holdWrites: () => Promise<() => void> = NO_GATE): FileReads {
  let native: Native | null = null;
  let nativeWriter: Native | null = null;
  let closed = false;
  let opening: Promise<SqliteReadDatabase | null> | null = null;
  let openingWriter: Promise<EngineTransactions | null> | null = null;
  let writerDb: SqliteReadDatabase | null = null;
  const openConnection = async (setup: string): Promise<Native | null> => {
    try {
      const path = await filePath(client);
      if (path === null || closed) return null;
      const { default: Database } = await import("libsql");
      const connection = new Database(path, { timeout: 5000 }) as unknown as Native;
      connection.exec(setup);
      return connection;
    } catch {
      // No engine (or no file): every statement keeps going through the client.
      return null;
    }
  };
  // synchronous is per connection: the same setting as the client's (FILE_PRAGMAS in connection.ts).
  const openWriter = async (): Promise<EngineTransactions | null> => {
    const connection = await openConnection("PRAGMA synchronous = NORMAL");
    if (connection === null) return null;
    nativeWriter = connection;
    // Compiled once: every transaction of the store begins and ends with one of them. (No cache shares one compiled
    // statement between callers: the engine leaves a `RETURNING` statement that `run` stepped unfinished, and the
    // next call on it returns nothing; each drizzle prepared statement keeps its own.)
    const begin = connection.prepare("BEGIN IMMEDIATE");
    const commit = connection.prepare("COMMIT");
    const rollback = connection.prepare("ROLLBACK");
    writerDb = syncDrizzle(connection);
    return {
      db: writerDb,
      begin: () => void begin.run([]),
      commit: () => void commit.run([]),
      rollback: () => {
        if (connection.inTransaction) rollback.run([]);
      },
    };
  };
  const transactions = () => (openingWriter ??= openWriter());
  return {
    // Only lookups run here; query_only makes a stray write fail instead of bypassing the client's batches.
    connection: () =>
      (opening ??= openConnection("PRAGMA query_only = ON").then((c) => {
        native = c;
        return c && syncDrizzle(c);
      })),
    writer: async () => (await transactions())?.db ?? null,
    // Outside a transaction the writer reads what has committed, as the read connection does; inside one it would
    // read the transaction's uncommitted rows, so lookups go to the read connection then.
    idleWriter: () => (nativeWriter !== null && !nativeWriter.inTransaction ? writerDb : null),
    transactions,
    holdWrites,
    async close() {
      closed = true;
      await opening;
      await openingWriter;
      native?.close();
      native = null;
      nativeWriter?.close();
      nativeWriter = null;
      writerDb = null;
    },
  };
}

// The client's first statement runs its setup (WAL) first; the file's absolute path comes from SQLite itself.
async function filePath(client: Client): Promise<string | null> {
  const list = await client.execute("PRAGMA database_list");
  const path = list.rows.find((row) => row.name === "main")?.file;
  return typeof path === "string" && path !== "" ? path : null;
}
