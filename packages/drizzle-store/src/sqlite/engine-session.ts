import { Column, is, Param, Placeholder, type Query } from "drizzle-orm";
import { BetterSQLiteSession } from "drizzle-orm/better-sqlite3/session";
import {
  SQLitePreparedQuery,
  SQLiteSession,
  type SelectedFieldsOrdered,
  type SQLiteExecuteMethod,
  type SQLiteSyncDialect,
} from "drizzle-orm/sqlite-core";

/**
 * A libsql engine statement (its better-sqlite3 API) as the lean queries call it: the values bound as one array,
 * rows as arrays once `raw(true)` has been set.
 */
interface EngineStatement {
  run(values: unknown[]): unknown;
  get(values: unknown[]): unknown;
  all(values: unknown[]): unknown[];
  raw(on?: boolean): unknown;
}

/** A libsql engine connection, as far as the session prepares statements on it. */
export interface EngineConnection {
  prepare(sql: string): EngineStatement;
}

/** What the session's queries return: drizzle's sync `PreparedQueryConfig` with every result left open. */
type LeanConfig = { type: "sync"; run: unknown; all: unknown; get: unknown; values: unknown; execute: unknown };

/** One bound value, compiled once per query parameter: a fixed value, a placeholder's value, or it encoded. */
type Bind = (values: Record<string, unknown>) => unknown;

const placeholderValue = (name: string, values: Record<string, unknown>): unknown => {
  if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`);
  return values[name];
};

// What drizzle's `fillPlaceholders` decides for each parameter on every call, decided once.
function binderOf(param: unknown): Bind {
  if (is(param, Placeholder)) {
    const { name } = param;
    return (values) => placeholderValue(name, values);
  }
  if (is(param, Param) && is(param.value, Placeholder)) {
    const { name } = param.value;
    const { encoder } = param;
    return (values) => encoder.mapToDriverValue(placeholderValue(name, values));
  }
  return () => param;
}

/** Flat rows (one key per column, no joins): the keys and the columns that decode them, in column order. */
interface Shape {
  keys: string[];
  decoders: Column[];
}

// Only selections of table columns, each at the top level; anything else (an SQL expression, a join's nested
// object) is mapped by drizzle itself.
function flatShape(fields: SelectedFieldsOrdered): Shape | null {
  const keys: string[] = [];
  const decoders: Column[] = [];
  for (const { path, field } of fields) {
    if (path.length !== 1 || !is(field, Column)) return null;
    keys.push(path[0]!);
    decoders.push(field);
  }
  return { keys, decoders };
}

/**
 * A query on an engine connection with drizzle's per-call work done once: the statement is in raw mode from the
 * start (drizzle's better-sqlite3 session switches it on before every read, one native call that lists the
 * statement's columns each time), the values are bound as one array through binders compiled from the query's
 * parameters, and a row becomes an object through the columns' decoders in order. Only flat selections come here
 * (see `EngineSession`); the rows and values are the ones drizzle's own session gives.
 */
class LeanQuery extends SQLitePreparedQuery<LeanConfig> {
  private readonly binders: Bind[];
  private statement: EngineStatement;

  constructor(
    private readonly connection: EngineConnection,
    query: Query,
    private readonly shape: Shape | null,
    executeMethod: SQLiteExecuteMethod,
  ) {
    super("sync", executeMethod, query);
    this.binders = query.params.map(binderOf);
    this.statement = this.compile();
  }

  private compile(): EngineStatement {
    const statement = this.connection.prepare(this.query.sql);
    if (this.shape !== null) statement.raw(true);
    return statement;
  }

  private bind(values: Record<string, unknown> = {}): unknown[] {
    const { binders } = this;
    const out = new Array<unknown>(binders.length);
    for (let i = 0; i < binders.length; i++) out[i] = binders[i]!(values);
    return out;
  }

  private row(raw: unknown[]): Record<string, unknown> {
    const { keys, decoders } = this.shape!;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const value = raw[i];
      out[keys[i]!] = value === null ? null : decoders[i]!.mapFromDriverValue(value);
    }
    return out;
  }

  run(values?: Record<string, unknown>): unknown {
    return this.statement.run(this.bind(values));
  }

  all(values?: Record<string, unknown>): unknown {
    const rows = this.statement.all(this.bind(values));
    if (this.shape === null) return rows;
    const out = new Array<Record<string, unknown>>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = this.row(rows[i] as unknown[]);
    return out;
  }

  get(values?: Record<string, unknown>): unknown {
    let raw: unknown;
    try {
      raw = this.statement.get(this.bind(values));
    } catch (error) {
      this.recompile();
      throw error;
    }
    if (this.shape === null || raw === undefined) return raw;
    return this.row(raw as unknown[]);
  }

  // The engine (libsql 0.5) leaves a statement whose `get` failed unreset: every later `get` on it answers the same
  // error (a unique conflict, SQLITE_BUSY) without running. `run` and `all` reset it; `get` starts over on a fresh
  // one. When that cannot be compiled either (the connection closed), the next call fails on the old one.
  private recompile(): void {
    try {
      this.statement = this.compile();
    } catch {
      // The error being thrown is the one to report.
    }
  }

  values(values?: Record<string, unknown>): unknown {
    if (this.shape !== null) return this.statement.all(this.bind(values));
    this.statement.raw(true);
    try {
      return this.statement.all(this.bind(values));
    } finally {
      this.statement.raw(false);
    }
  }
}

type Schema = Record<string, never>;

/**
 * drizzle's sync session over a libsql engine connection (its better-sqlite3 API), with lean queries: a flat
 * selection of columns, or none, runs as a `LeanQuery`; anything else (SQL expressions, nested selections of
 * joins, a custom result mapper) goes to drizzle's better-sqlite3 session as before. The store's transactions are
 * BEGIN and COMMIT on the connection (file-reads.ts); drizzle's own `transaction` is the better-sqlite3 session's.
 */
export class EngineSession extends SQLiteSession<"sync", unknown, Schema, Schema> {
  private readonly drizzleSession: BetterSQLiteSession<Schema, Schema>;

  constructor(
    private readonly connection: EngineConnection,
    dialect: SQLiteSyncDialect,
  ) {
    super(dialect);
    this.drizzleSession = new BetterSQLiteSession(connection as never, dialect, undefined);
  }

  prepareQuery(
    query: Query,
    fields: SelectedFieldsOrdered | undefined,
    executeMethod: SQLiteExecuteMethod,
    isResponseInArrayMode: boolean,
    customResultMapper?: (rows: unknown[][]) => unknown,
  ): SQLitePreparedQuery<LeanConfig> {
    const shape = fields === undefined ? null : flatShape(fields);
    if (customResultMapper !== undefined || (fields !== undefined && shape === null))
      return this.drizzleSession.prepareQuery(query, fields, executeMethod, isResponseInArrayMode, customResultMapper);
    return new LeanQuery(this.connection, query, shape, executeMethod);
  }

  transaction<T>(body: Parameters<BetterSQLiteSession<Schema, Schema>["transaction"]>[0]): T {
    return this.drizzleSession.transaction(body) as T;
  }
}
