/** The parts of a libsql engine statement (better-sqlite3 API) drizzle's sync session uses. */
export interface EngineStatement {
  readonly reader: boolean;
  raw(on?: boolean): EngineStatement;
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The part of a libsql engine connection a drizzle sync session calls. */
export interface EngineConnection {
  prepare(sql: string): EngineStatement;
}

/**
 * A connection whose `prepare` hands out statements SQLite compiled once per SQL text, keeping the `max` most
 * recently used (a statement built per call, such as a patch's UPDATE, has as many texts as field sets; the
 * least recently used is dropped and finalized by the engine when collected).
 *
 * One compiled statement may stand behind several callers, and drizzle toggles a statement's raw (array) mode for
 * its own reads: each caller gets a handle that remembers its own mode and sets it on the statement before each
 * call. Every call binds, runs to completion and resets (`run`, `get`, `all`): no iteration is left open across
 * calls, so a statement is never in use twice at once on this single-threaded connection.
 */
export function statementCache(connection: EngineConnection, max: number): EngineConnection {
  const compiled = new Map<string, Compiled>();
  return {
    prepare(sql) {
      let entry = compiled.get(sql);
      if (entry === undefined) {
        const statement = connection.prepare(sql);
        entry = { statement, reader: statement.reader, raw: false };
        if (compiled.size >= max) compiled.delete(compiled.keys().next().value as string);
      } else {
        compiled.delete(sql);
      }
      compiled.set(sql, entry);
      return handle(entry);
    },
  };
}

interface Compiled {
  statement: EngineStatement;
  reader: boolean;
  /** The raw mode last set on the statement. */
  raw: boolean;
}

function handle(entry: Compiled): EngineStatement {
  const { statement, reader } = entry;
  let raw = false;
  // Only a statement that returns rows has a raw mode (the engine refuses the toggle on any other).
  const mode = () => {
    if (entry.raw !== raw) {
      statement.raw(raw);
      entry.raw = raw;
    }
    return statement;
  };
  const self: EngineStatement = {
    reader,
    raw(on = true) {
      if (reader) raw = on;
      return self;
    },
    run: (...params) => mode().run(...params),
    get: (...params) => mode().get(...params),
    all: (...params) => mode().all(...params),
  };
  return self;
}
