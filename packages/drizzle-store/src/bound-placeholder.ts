import { getTableColumns, Param, sql, type DriverValueEncoder, type SQL, type Table } from "drizzle-orm";

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

/**
 * One bound placeholder per column of `table`, named by the column's property (the record field) after `prefix`:
 * the `values` of a prepared INSERT that binds a whole record. A null binds as NULL without the encoder (a JSON
 * column would store the text "null"); every other value goes through the column's encoder. A statement that binds
 * two records gives the second a prefix (`{ "account.id": ... }`).
 *
 * @example
 * const insertSession = db.insert(sessions).values(rowPlaceholders(sessions)).prepare();
 * if (bindsWhole(sessions, record)) await insertSession.run(record);
 */
export function rowPlaceholders<T extends Table>(table: T, prefix = ""): Record<keyof T["_"]["columns"], SQL> {
  const columns = getTableColumns(table) as Record<string, DriverValueEncoder<unknown, unknown>>;
  const out: Record<string, SQL> = {};
  for (const [key, column] of Object.entries(columns)) {
    const encoder: DriverValueEncoder<unknown, unknown> = {
      mapToDriverValue: (value) => (value === null ? null : column.mapToDriverValue(value)),
    };
    out[key] = sql`${new Param<unknown, unknown>(sql.placeholder(prefix + key), encoder)}`;
  }
  return out as Record<keyof T["_"]["columns"], SQL>;
}

/**
 * Whether `record` has a value (null included) for every column of `table`: a prepared INSERT of
 * `rowPlaceholders` binds them all, where drizzle's own insert would let a missing one take its default.
 */
export function bindsWhole(table: Table, record: object): record is Record<string, unknown> {
  let keys = columnKeys.get(table);
  if (!keys) {
    keys = Object.keys(getTableColumns(table));
    columnKeys.set(table, keys);
  }
  const values = record as Record<string, unknown>;
  for (const key of keys) if (values[key] === undefined) return false;
  return true;
}

const columnKeys = new WeakMap<Table, string[]>();
