import type { Client } from "@libsql/client";

/**
 * The same file settings on both sides: WAL journal (stored in the file, so it survives the client's reconnects
 * after a transaction); synchronous stays at SQLite's default.
 */
export async function useWal(client: Client): Promise<void> {
  await client.execute("pragma journal_mode = wal");
}
