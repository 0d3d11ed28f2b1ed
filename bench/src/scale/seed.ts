import { getTableColumns, getTableName, type Table } from "drizzle-orm";
import Database from "libsql";
import pg from "pg";
import { schema as pgSchema } from "@latchkey/drizzle-store/postgres";
import { schema as sqliteSchema } from "@latchkey/drizzle-store/sqlite";
import { betterAuthRows, latchkeyRows, type LatchkeyRows, type ScaleSizes } from "./rows.ts";

/** Where a scale seed writes: a libSQL file (through the engine, as the store's own file) or a PostgreSQL database. */
export type SeedTarget = { dialect: "sqlite"; file: string } | { dialect: "postgres"; url: string };

/** What one seed wrote, per table, and how long it took. */
export interface SeedReport {
  rows: Record<string, number>;
  ms: number;
}

/** A row keyed by the schema's property names. */
export type Row = Record<string, unknown>;
/** A drizzle table of either dialect (the store's schema may come from another copy of drizzle-orm's types). */
export type SchemaTable = object;
const columnsOf = (table: SchemaTable) => Object.entries(getTableColumns(table as Table));
const nameOf = (table: SchemaTable) => getTableName(table as Table);
type SchemaColumn = ReturnType<typeof columnsOf>[number][1];
/**
 * A row's value for a column; a column the row does not set gets the schema's own JS default (a column added to the
 * store later, e.g. `api_keys.locked`), since every column is listed in the insert. SQL defaults are left to null.
 */
function valueFor(row: Record<string, unknown>, key: string, column: SchemaColumn): unknown {
  const value = row[key];
  if (value !== undefined) return value;
  const fallback = column.default as unknown;
  return fallback === undefined || (typeof fallback === "object" && fallback !== null && "queryChunks" in fallback)
    ? null
    : fallback;
}
type Native = {
  prepare(sql: string): { run(...values: unknown[]): unknown };
  exec(sql: string): unknown;
  close(): void;
};

const BATCH = 5_000;
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A bulk writer for one database. Rows come keyed by the schema's property names; the writer encodes each value
 * with the schema's own column (drizzle's `mapToDriverValue`: epoch ms and 0/1 in SQLite, JSON text), so what
 * lands on disk is what the store itself would have written.
 */
export interface BulkWriter {
  insert(table: SchemaTable, rows: Row[]): Promise<void>;
  finish(tables: string[]): Promise<void>;
  close(): Promise<void>;
}

function sqliteWriter(file: string): BulkWriter {
  const db = new Database(file, { timeout: 10_000 }) as unknown as Native;
  db.exec("PRAGMA journal_mode = WAL");
  // A bulk load only: no fsync per batch (the file is checkpointed at the end) and a page cache that holds the
  // random-keyed indexes of a 1M-row table, so inserting is not a page miss per row.
  db.exec("PRAGMA synchronous = OFF");
  db.exec("PRAGMA cache_size = -262144");
  const statements = new Map<SchemaTable, { run(...values: unknown[]): unknown }>();
  return {
    async insert(table, rows) {
      const columns = columnsOf(table);
      let statement = statements.get(table);
      if (!statement) {
        statement = db.prepare(
          `insert into ${quote(nameOf(table))} (${columns.map(([, c]) => quote(c.name)).join(", ")}) values (${columns.map(() => "?").join(", ")})`,
        );
        statements.set(table, statement);
      }
      db.exec("BEGIN IMMEDIATE");
      try {
        for (const row of rows) {
          statement.run(
            ...columns.map(([key, column]) => {
              const value = valueFor(row, key, column);
              return value === null || value === undefined ? null : column.mapToDriverValue(value);
            }),
          );
        }
        db.exec("COMMIT");
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
    },
    async finish() {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    },
    async close() {
      db.close();
    },
  };
}

function postgresWriter(url: string): BulkWriter {
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  return {
    async insert(table, rows) {
      await connected;
      const columns = columnsOf(table);
      const name = quote(nameOf(table));
      // One statement per batch: PostgreSQL turns the JSON array into rows of the table's own type (every value
      // cast by the column: ISO text to timestamptz, JSON objects to json), the fastest path short of COPY.
      const records = rows.map((row) =>
        Object.fromEntries(columns.map(([key, column]) => [column.name, valueFor(row, key, column) ?? null])),
      );
      const list = columns.map(([, c]) => quote(c.name)).join(", ");
      await client.query(
        `insert into ${name} (${list}) select ${list} from json_populate_recordset(null::${name}, $1::json)`,
        [JSON.stringify(records)],
      );
    },
    async finish(tables) {
      await connected;
      // What autovacuum would do shortly after a bulk load: statistics and the visibility map, for both libraries.
      for (const table of tables) await client.query(`vacuum analyze ${quote(table)}`);
    },
    async close() {
      await client.end();
    },
  };
}

/** The bulk writer of one seed target (see `BulkWriter`). */
export const writerFor = (target: SeedTarget): BulkWriter =>
  target.dialect === "sqlite" ? sqliteWriter(target.file) : postgresWriter(target.url);

/** Writes `count` rows of `table` in batches, `rowsOf(from, to)` building each batch. */
export async function load(
  writer: BulkWriter,
  table: SchemaTable,
  count: number,
  rowsOf: (from: number, to: number) => Row[],
): Promise<void> {
  // One batch in flight while the next is generated: on PostgreSQL the server inserts while this process builds.
  let pending: Promise<void> = Promise.resolve();
  for (let from = 0; from < count; from += BATCH) {
    const rows = rowsOf(from, Math.min(count, from + BATCH));
    await pending;
    pending = writer.insert(table, rows);
  }
  await pending;
}

/**
 * Bulk-loads Latchkey's tables (migrated already) through its own drizzle schema: `users`, `sessions`, `api_keys`
 * and `audit_events` in the sizes given. Every row is valid: a session or key of row `i` is found by the store
 * under the token or key `rows.ts` derives for `i`.
 */
export async function seedLatchkeyScale(
  target: SeedTarget,
  sizes: ScaleSizes,
  now = Date.now(),
  progress?: (line: string) => void,
): Promise<SeedReport> {
  const started = performance.now();
  const tables = target.dialect === "sqlite" ? sqliteSchema : pgSchema;
  const plan: Array<[keyof LatchkeyRows, SchemaTable, number]> = [
    ["users", tables.users, sizes.users],
    ["sessions", tables.sessions, sizes.sessions],
    ["apiKeys", tables.apiKeys, sizes.apiKeys],
    ["auditEvents", tables.auditEvents, sizes.audit],
  ];
  const writer = writerFor(target);
  const rows: Record<string, number> = {};
  try {
    for (const [kind, table, count] of plan) {
      const t = performance.now();
      await load(writer, table, count, (from, to) => latchkeyRows(kind, from, to, sizes, now));
      rows[nameOf(table)] = count;
      progress?.(
        `      latchkey ${nameOf(table)}: ${count.toLocaleString("en-US")} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
    }
    await writer.finish(plan.map(([, table]) => nameOf(table)));
  } finally {
    await writer.close();
  }
  return { rows, ms: performance.now() - started };
}

/**
 * Bulk-loads Better Auth's `user`, `session` and `apikey` tables (created already, by its own schema) in the same
 * sizes. It has no audit table. `tables` are drizzle tables over its `getSchema()` (column name = property name).
 */
export async function seedBetterAuthScale(
  target: SeedTarget,
  tables: Record<string, SchemaTable>,
  sizes: ScaleSizes,
  now = Date.now(),
  progress?: (line: string) => void,
): Promise<SeedReport> {
  const started = performance.now();
  // A model with no rows to write is left out (a micro bench seeds users only, without the apiKey plugin).
  const plan = (
    [
      ["user", sizes.users],
      ["session", sizes.sessions],
      ["apikey", sizes.apiKeys],
    ] as Array<["user" | "session" | "apikey", number]>
  ).filter(([, count]) => count > 0);
  const writer = writerFor(target);
  const rows: Record<string, number> = {};
  try {
    for (const [model, count] of plan) {
      const table = tables[model];
      if (!table) throw new Error(`Better Auth's schema has no ${model} table`);
      const t = performance.now();
      await load(writer, table, count, (from, to) => betterAuthRows(model, from, to, sizes, now));
      rows[model] = count;
      progress?.(
        `      better-auth ${model}: ${count.toLocaleString("en-US")} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
    }
    await writer.finish(plan.map(([model]) => model));
  } finally {
    await writer.close();
  }
  return { rows, ms: performance.now() - started };
}
