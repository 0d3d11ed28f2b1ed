import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";

/**
 * The drizzle handle every SQLite port implementation takes: libSQL (`drizzle-orm/libsql`) and Cloudflare D1
 * (`drizzle-orm/d1`) both fit. Neither has an interactive transaction here: what must change together goes in one
 * statement or one `batch`, which both drivers run atomically (libSQL as one write transaction, D1 as one
 * implicit transaction that rolls back whole).
 */
export type SqliteDatabase = BaseSQLiteDatabase<"async", unknown> & {
  batch<U extends BatchItem<"sqlite">, T extends Readonly<[U, ...U[]]>>(batch: T): Promise<BatchResponse<T>>;
};

/** Rows a write changed: libSQL's client reports `rowsAffected`, D1 `meta.changes`, the libsql engine `changes`. */
export function changedRows(result: unknown): number {
  const r = result as { rowsAffected?: unknown; meta?: { changes?: unknown }; changes?: unknown } | null;
  const count = r?.rowsAffected ?? r?.meta?.changes ?? r?.changes;
  if (typeof count !== "number") throw new TypeError("the SQLite driver reported no count of changed rows");
  return count;
}
