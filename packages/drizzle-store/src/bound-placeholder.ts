import { Param, sql, type DriverValueEncoder, type SQL } from "drizzle-orm";

/**
 * A named placeholder for a prepared statement that goes through the column's encoder when it is bound, so a
 * `Date` becomes what the column stores (epoch ms in SQLite, an ISO string in PostgreSQL). Drizzle's `set` and
 * `values` types do not accept a bare placeholder; wrapped as SQL they do, and the encoding still happens.
 *
 * @example
 * const touch = db.update(sessions).set({ expiresAt: boundPlaceholder("expiresAt", sessions.expiresAt) })
 *   .where(eq(sessions.id, sql.placeholder("id"))).prepare();
 * await touch.run({ id, expiresAt: new Date() });
 */
export function boundPlaceholder(name: string, column: DriverValueEncoder<unknown, unknown>): SQL {
  return sql`${new Param<unknown, unknown>(sql.placeholder(name), column)}`;
}
