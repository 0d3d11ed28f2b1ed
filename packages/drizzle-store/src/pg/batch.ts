import { sql, type Column, type SQL, type SQLWrapper } from "drizzle-orm";

/**
 * `column = any(array(<ids>))`: the rows of one sweep batch, `ids` being a `select ... limit n` of the key column.
 * PostgreSQL plans `column in (<ids>)` as a hash semi join over a sequential scan of the whole table, so each batch
 * would read every row (a sweep of N rows in batches of B reads N * N / B rows). As an array the subquery runs
 * once, first (an InitPlan), and the statement finds each of its rows through the primary key.
 *
 * @example
 * db.delete(sessions).where(inBatch(sessions.id, db.select({ id: sessions.id }).from(sessions).where(expired).limit(1000)));
 */
export function inBatch(column: Column, ids: SQLWrapper): SQL {
  return sql`${column} = any(array(${ids}))`;
}
