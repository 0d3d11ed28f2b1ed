import pg from "pg";

type Parser = (value: string) => unknown;
type TypeParsers = { getTypeParser(oid: number, format: "text"): Parser };

/** A named prepared statement as drizzle hands it to node-postgres. */
export interface NamedQueryConfig {
  name: string;
  text: string;
  rowMode?: "array";
  types?: TypeParsers;
}

/** What a statement's rows look like: column names and the parser of each, from its first RowDescription. */
interface Shape {
  names: string[];
  parsers: Parser[];
}

/** What of node-postgres' wire connection a lean query writes through. */
interface Wire {
  parsedStatements: Record<string, string | undefined>;
  // node-postgres 8.23 tracks Parses in flight here; older ones do not.
  submittedNamedStatements?: Record<string, string | undefined>;
  parse(message: { text: string; name: string }): void;
  bind(message: { statement: string; values: Array<string | Buffer | null> }): void;
  describe(message: { type: "P"; name: string }): void;
  execute(message: Record<string, never>): void;
  sync(): void;
  sendCopyFail(message: string): void;
  stream: { cork?: () => void; uncork?: () => void };
}

type Callback = (error: Error | undefined, result?: LeanResult) => void;

/** The part of a `pg.QueryResult` drizzle and the ports read. */
export interface LeanResult {
  command: string | null;
  rowCount: number | null;
  rows: unknown[];
  fields: never[];
}

/** Whether `proto` (node-postgres' `Connection.prototype`) has every wire method a lean query writes through. */
export function hasWire(proto: unknown): boolean {
  if (typeof proto !== "object" || proto === null) return false;
  const methods = proto as Record<string, unknown>;
  return ["parse", "bind", "describe", "execute", "sync"].every((name) => typeof methods[name] === "function");
}

/**
 * Lean queries and the BEGIN carried by a first statement (leading-begin.ts) write node-postgres' wire messages
 * themselves. They run only where its connection has the methods they call (every 8.x to date); on any other
 * version every statement takes node-postgres' own path, as before, instead of failing.
 */
export const WIRE = hasWire((pg as unknown as { Connection?: { prototype?: unknown } }).Connection?.prototype);

// Shapes by statement name (a name is one SQL text, see `submit`): the same on every connection.
const shapes = new Map<string, Shape>();

/**
 * The wire value of a bound parameter, or undefined when node-postgres' own conversion is needed (an array, a
 * Date, an object): such a statement goes through `pg.Query` instead. Drizzle's column encoders hand strings,
 * numbers and booleans; node-postgres sends those as their `toString()`, and so does this.
 */
function wireValue(value: unknown): string | Buffer | null | undefined {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "boolean":
    case "bigint":
      return value.toString();
    default:
      return Buffer.isBuffer(value) ? value : undefined;
  }
}

/** The bound values of a lean query, or null when one of them needs node-postgres' own conversion. */
function wireValues(values: readonly unknown[]): Array<string | Buffer | null> | null {
  const out: Array<string | Buffer | null> = new Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = wireValue(values[i]);
    if (value === undefined) return null;
    out[i] = value;
  }
  return out;
}

const COMMAND = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/;

/**
 * A named prepared statement run as a node-postgres submittable (the documented `client.query(submittable)`
 * extension point, as pg-cursor uses): what `pg.Query` does for it, minus what the store's statements never need.
 * Per call, `pg.Query` copies its config through property descriptors, builds a `Result` whose `addFields` makes a
 * parser array and a row template object for every RowDescription, and emits a `row` event per row; and the
 * statement is Described every time, so PostgreSQL sends the RowDescription every time and the driver parses it.
 * Here the first execution of a statement (on any connection) Describes it and keeps its column names and parsers;
 * later ones send Bind, Execute and Sync (and Parse on a connection's first use) and read DataRows straight into
 * the rows drizzle maps, arrays in `rowMode: "array"` as drizzle asks, objects otherwise.
 *
 * Errors are node-postgres' own (`DatabaseError` from the server, the connection's error on a lost socket), handed
 * to the callback once; the client's read timeout wraps `callback` as it does for `pg.Query`.
 */
export class LeanQuery {
  readonly name: string;
  readonly text: string;
  callback: Callback | undefined;
  private readonly arrays: boolean;
  private readonly types: TypeParsers | undefined;
  private shape: Shape | undefined;
  private described = false;
  private rows: unknown[] = [];
  private command: string | null = null;
  private rowCount: number | null = null;
  private done = false;
  private rowError: Error | undefined;

  constructor(
    config: NamedQueryConfig,
    private readonly values: Array<string | Buffer | null>,
  ) {
    this.name = config.name;
    this.text = config.text;
    this.arrays = config.rowMode === "array";
    this.types = config.types;
  }

  submit(wire: Wire): Error | undefined {
    const previous = wire.parsedStatements[this.name] ?? wire.submittedNamedStatements?.[this.name];
    if (previous !== undefined && previous !== this.text)
      return new Error(`Prepared statements must be unique - '${this.name}' was used for a different statement`);
    this.shape = shapes.get(this.name);
    wire.stream.cork?.();
    try {
      if (previous === undefined) {
        wire.parse({ text: this.text, name: this.name });
        if (wire.submittedNamedStatements) wire.submittedNamedStatements[this.name] = this.text;
      }
      wire.bind({ statement: this.name, values: this.values });
      if (this.shape === undefined) {
        this.described = true;
        wire.describe({ type: "P", name: "" });
      }
      wire.execute({});
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
    return undefined;
  }

  handleRowDescription(message: { fields: Array<{ name: string; dataTypeID: number }> }): void {
    const names = message.fields.map((f) => f.name);
    const parsers = message.fields.map((f) => this.parserOf(f.dataTypeID));
    this.shape = { names, parsers };
  }

  private parserOf(oid: number): Parser {
    return this.types ? this.types.getTypeParser(oid, "text") : (value: string) => value;
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    const shape = this.shape;
    // Rows without a shape are never sent (a statement without one is Described); a parser that threw fails the
    // statement once its ReadyForQuery arrives (the rows after it are dropped), as with `pg.Query`.
    if (shape === undefined || this.rowError !== undefined) return;
    try {
      this.rows.push(this.parseRow(shape, message.fields));
    } catch (error) {
      this.rowError = error instanceof Error ? error : new Error(String(error));
    }
  }

  private parseRow(shape: Shape, fields: Array<string | null>): unknown {
    if (this.arrays) {
      const row = new Array<unknown>(fields.length);
      for (let i = 0; i < fields.length; i++) {
        const raw = fields[i] ?? null;
        row[i] = raw === null ? null : (shape.parsers[i] as Parser)(raw);
      }
      return row;
    }
    const row: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const raw = fields[i] ?? null;
      row[shape.names[i] as string] = raw === null ? null : (shape.parsers[i] as Parser)(raw);
    }
    return row;
  }

  handleCommandComplete(message: { text: string }): void {
    const match = COMMAND.exec(message.text);
    if (!match) return;
    this.command = match[1] ?? null;
    const count = match[3] ?? match[2];
    this.rowCount = count === undefined ? null : Number(count);
  }

  handleReadyForQuery(): void {
    // A Described statement that returned no rows (an INSERT without RETURNING, NoData) has no columns.
    if (this.described && !shapes.has(this.name)) shapes.set(this.name, this.shape ?? { names: [], parsers: [] });
    if (this.rowError !== undefined) this.finish(this.rowError);
    else this.finish(undefined, { command: this.command, rowCount: this.rowCount, rows: this.rows, fields: [] });
  }

  handleError(error: Error): void {
    this.finish(error);
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(wire: Wire): void {
    wire.sendCopyFail("No source stream defined");
  }

  handleCopyData(): void {}

  private finish(error: Error | undefined, result?: LeanResult): void {
    if (this.done) return;
    this.done = true;
    this.callback?.(error, result);
  }
}

/**
 * Runs a query on a pooled client as a promise: a submittable (a lean query, or `pg.Query`) is handed back by
 * `client.query`, not a promise, so its callback settles one here.
 */
export function runSubmittable(client: pg.ClientBase, query: { callback: unknown }): Promise<unknown> {
  return new Promise((resolve, reject) => {
    query.callback = (error: Error | undefined, result: unknown) => (error ? reject(error) : resolve(result));
    (client.query as unknown as (q: unknown) => unknown)(query);
  });
}

/** A lean query for drizzle's query config and values, or null when it is not one (see `LeanQuery`). */
export function leanQueryOf(config: unknown, values: unknown): LeanQuery | null {
  if (!WIRE) return null;
  if (typeof config !== "object" || config === null || "submit" in config || !Array.isArray(values)) return null;
  const c = config as Partial<NamedQueryConfig> & { rows?: unknown; queryMode?: unknown; binary?: unknown };
  if (typeof c.name !== "string" || c.name === "" || typeof c.text !== "string") return null;
  if (c.rows !== undefined || c.queryMode !== undefined || c.binary) return null;
  const wire = wireValues(values);
  return wire === null ? null : new LeanQuery(c as NamedQueryConfig, wire);
}

/**
 * What the store's drizzle instance queries through instead of the pool itself: named prepared statements run as
 * lean queries (`pool.query` takes a submittable and hands it the pooled client's callback), anything else as
 * before. Drizzle recognises a pool (`instanceof`) to open its own transactions on one connection: this object's
 * prototype is the pool, and `connect` is the pool's own.
 */
export function leanPool(pool: pg.Pool): pg.Pool {
  const lean = Object.create(pool) as pg.Pool & Record<string, unknown>;
  lean.query = ((config: unknown, values?: unknown) => {
    const query = leanQueryOf(config, values);
    return query ? pool.query(query as never) : (pool.query as (c: unknown, v?: unknown) => unknown)(config, values);
  }) as never;
  lean.connect = pool.connect.bind(pool) as never;
  return lean;
}
