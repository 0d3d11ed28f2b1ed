import type { PgDatabase as DrizzlePgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

/** The database handle every PostgreSQL port takes: node-postgres or postgres.js, or a transaction of either. */
export type PgDatabase = DrizzlePgDatabase<PgQueryResultHKT>;

/** Rows a write changed: node-postgres reports `rowCount`, postgres.js `count`. */
export function changedRows(result: unknown): number {
  const r = result as { rowCount?: number | null; count?: number };
  return r.rowCount ?? r.count ?? 0;
}
