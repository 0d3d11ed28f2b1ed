import type { AccountRecord, UserRecord } from "@latchkey/core";
import { getTableColumns, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { PgDialect, type PgColumn } from "drizzle-orm/pg-core";
import { rowPlaceholders } from "../bound-placeholder.ts";
import type { PgDatabase } from "./database.ts";
import { accounts, users } from "./schema.ts";

/** Runs the one-statement sign-up insert: the user row written, or null when a unique index already held it. */
export type InsertUserWithAccount = (user: UserRecord, account: AccountRecord) => Promise<UserRecord | null>;

const dialect = new PgDialect();
const ACCOUNT_PREFIX = "account.";

/**
 * A sign-up's user and its first account in ONE prepared statement (named `users_insert_with_account`):
 *
 *   with "inserted" as (insert into users ... on conflict do nothing returning <columns>),
 *        "account" as (insert into accounts ... select <bound values> from "inserted")
 *   select <columns> from "inserted"
 *
 * One round trip where a savepoint, two INSERTs and its release took four (or BEGIN, two INSERTs and COMMIT outside
 * a transaction). A statement is atomic by itself, so the pair needs no transaction of its own; the account row
 * exists exactly when the user row was inserted (it selects from the CTE). A unique index that already holds the
 * email or username makes the INSERT do nothing instead of raising: the caller's transaction stays usable (the
 * conflict is then named by a lookup, see users.ts), as the savepoint kept it before.
 *
 * The account's values are cast to their column types: in `insert ... select` PostgreSQL cannot infer a bound
 * parameter's type from the target column as it does for `values`.
 */
export function insertUserWithAccount(db: PgDatabase): InsertUserWithAccount {
  const userColumns = Object.entries(getTableColumns(users)) as Array<[keyof UserRecord & string, PgColumn]>;
  const accountColumns = Object.entries(getTableColumns(accounts)) as Array<[keyof AccountRecord & string, PgColumn]>;
  const userValues = rowPlaceholders(users) as Record<string, SQL>;
  const accountValues = rowPlaceholders(accounts, ACCOUNT_PREFIX) as Record<string, SQL>;
  const list = (parts: SQLWrapper[]) => sql.join(parts, sql`, `);
  const names = (columns: Array<[string, PgColumn]>) => list(columns.map(([, c]) => sql.identifier(c.name)));
  const statement = sql`with "inserted" as (insert into ${users} (${names(userColumns)}) values (${list(
    userColumns.map(([key]) => userValues[key] as SQL),
  )}) on conflict do nothing returning ${names(userColumns)}), "account" as (insert into ${accounts} (${names(
    accountColumns,
  )}) select ${list(
    accountColumns.map(([key, c]) => sql`${accountValues[key] as SQL}::${sql.raw(c.getSQLType())}`),
  )} from "inserted") select ${names(userColumns)} from "inserted"`;
  // Rows come back as arrays in the column order above, each value decoded as drizzle decodes a selected column.
  const decode = (row: unknown[]): UserRecord => {
    const out: Record<string, unknown> = {};
    userColumns.forEach(([key, column], i) => {
      const value = row[i];
      out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    });
    return out as unknown as UserRecord;
  };
  const prepared = db._.session.prepareQuery<{ execute: UserRecord[]; all: unknown; values: unknown }>(
    dialect.sqlToQuery(statement),
    undefined,
    "users_insert_with_account",
    true,
    (rows) => (rows as unknown[][]).map(decode),
  );
  return async (user, account) => {
    const values: Record<string, unknown> = { ...user };
    for (const [key, value] of Object.entries(account)) values[ACCOUNT_PREFIX + key] = value;
    const [row] = await prepared.execute(values);
    return row ?? null;
  };
}
