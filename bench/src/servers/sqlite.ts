import type { Client } from "@libsql/client";

/**
 * The same file settings on both sides: WAL journal (stored in the file, so it survives the client's reconnects
 * after a transaction) and synchronous=NORMAL, the setting Latchkey's store applies when it opens a `file:` URL
 * itself (its default, used by the Latchkey server here). synchronous is per connection: @libsql/client may open
 * further connections after a transaction, which start at SQLite's default (FULL) again.
 */
export async function useWal(client: Client): Promise<void> {
  await client.execute("pragma journal_mode = wal");
  await client.execute("pragma synchronous = normal");
}
