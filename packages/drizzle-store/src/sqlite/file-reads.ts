import type { Client } from "@libsql/client";
import { BetterSQLiteSession } from "drizzle-orm/better-sqlite3/session";
import { BaseSQLiteDatabase, SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import type { FileReads, SqliteReadDatabase } from "./read-through.ts";

export { readThrough, type FileReads, type SqliteReadDatabase } from "./read-through.ts";

// drizzle's better-sqlite3 session over the libsql engine; its `drizzle()` entry imports better-sqlite3 itself.
function syncDrizzle(connection: Native): SqliteReadDatabase {
  const dialect = new SQLiteSyncDialect();
  return new BaseSQLiteDatabase("sync", dialect, new BetterSQLiteSession(connection as never, dialect, undefined), undefined);
}

type Native = { prepare(sql: string): unknown; exec(sql: string): unknown; close(): void };

/** Opens lookup connections to the file behind `client` (a `file:` client whose setup has set WAL mode). */
export function fileReads(client: Client): FileReads {
  let native: Native | null = null;
  let closed = false;
  let opening: Promise<SqliteReadDatabase | null> | null = null;
  const open = async (): Promise<SqliteReadDatabase | null> => {
    try {
      // The client's first statement runs its setup (WAL) first; the file's absolute path comes from SQLite itself.
      const list = await client.execute("PRAGMA database_list");
      const path = list.rows.find((row) => row["name"] === "main")?.["file"];
      if (typeof path !== "string" || path === "" || closed) return null;
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
    async close() {
      closed = true;
      await opening;
      native?.close();
      native = null;
    },
  };
}
