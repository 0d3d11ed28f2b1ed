import pg from "pg";
import { leanQueryOf, runSubmittable, WIRE } from "./lean-query.ts";

/** The named statement a transaction opens with: parsed once per connection, then bound and executed. */
const BEGIN_STATEMENT = { name: "latchkey_begin", text: "begin" } as const;

/** What of node-postgres' wire connection (`client.connection`) the leading BEGIN writes through. */
interface Wire {
  parsedStatements: Record<string, string | undefined>;
  bind(message: { statement: string }): void;
  execute(message: Record<string, never>): void;
  stream: { cork?: () => void; uncork?: () => void };
}

/** The part of `pg.Query` this file hooks: how it writes itself, and the CommandComplete it is told about. */
interface HookedQuery {
  queryMode?: string;
  callback?: unknown;
  submit(wire: Wire): Error | undefined;
  handleCommandComplete(message: unknown, wire: Wire): void;
}

type QueryConfig = { text: string; name?: string } & Record<string, unknown>;

/**
 * A connection's transactions with BEGIN carried by their first statement: `arm()` marks the connection's next
 * transaction as not yet begun, and the first statement the body sends goes out as one write, the prepared BEGIN's
 * Bind and Execute ahead of the statement's own extended-protocol messages, with one Sync at the end. PostgreSQL
 * runs the BEGIN, then the statement inside the transaction it opened, and answers both in one read; a
 * transaction costs the driver one write and one read fewer, and its caller one round trip less.
 *
 * The BEGIN has to be the named statement `latchkey_begin`, already parsed on the connection (`prepare()` runs it
 * once, as a transaction's BEGIN): a Parse in the same write would answer with a ParseComplete that node-postgres
 * credits to the statement after it (marking a statement parsed before its own Parse succeeded). Its CommandComplete
 * is swallowed, so the statement's result is the statement's alone. An error of either (the server skips to the
 * Sync) fails the statement, and the transaction with it, as a failed BEGIN or first statement did before.
 *
 * `client` is what the connection's drizzle session queries through: every call is the connection's `query`,
 * except the first one after `arm()`, which is built here as a `pg.Query` (a documented submittable) and queued on
 * the connection in its place, with the same read timeout and the same promise.
 */
export class LeadingBegin {
  private armed = false;
  readonly client: { query: (config: unknown, values?: unknown) => Promise<unknown> };

  constructor(private readonly connection: pg.PoolClient) {
    this.client = {
      query: (config, values) => {
        if (this.armed && typeof config === "object" && config !== null && !("submit" in config)) {
          this.armed = false;
          return this.carryBegin(config as QueryConfig, values);
        }
        const lean = leanQueryOf(config, values);
        if (lean) return runSubmittable(connection, lean);
        return (connection.query as (c: unknown, v?: unknown) => Promise<unknown>)(config, values);
      },
    };
  }

  private wire(): Wire {
    return (this.connection as unknown as { connection: Wire }).connection;
  }

  /** Whether the connection has parsed the BEGIN statement (a new connection has not; a reset one has lost it). */
  prepared(): boolean {
    // Never on a node-postgres without the wire methods: every transaction then begins the plain way.
    return WIRE && this.wire().parsedStatements?.[BEGIN_STATEMENT.name] === BEGIN_STATEMENT.text;
  }

  /** Opens the transaction the plain way, parsing the BEGIN statement for the next ones on this connection. */
  async prepare(): Promise<void> {
    await this.connection.query(BEGIN_STATEMENT);
  }

  /** The next statement of this connection opens the transaction. */
  arm(): void {
    this.armed = true;
  }

  /** Whether an armed transaction has not sent a statement yet (so nothing was begun: no COMMIT or ROLLBACK). */
  pending(): boolean {
    return this.armed;
  }

  /** Disarms: a transaction that ended without a statement leaves the next query of the connection plain. */
  disarm(): void {
    this.armed = false;
  }

  private carryBegin(config: QueryConfig, values: unknown): Promise<unknown> {
    // A named statement as a lean query (lean-query.ts), anything else as a `pg.Query` in the extended protocol
    // (even without parameters: BEGIN's Bind and Execute need a Sync after them, which the statement's own
    // messages end with).
    let query = leanQueryOf(config, values) as unknown as HookedQuery | null;
    if (query === null) {
      query = new pg.Query(config as pg.QueryConfig, values as unknown[]) as unknown as HookedQuery;
      query.queryMode = "extended";
    }
    const submit = query.submit;
    query.submit = function (this: HookedQuery, wire: Wire) {
      if (wire.parsedStatements[BEGIN_STATEMENT.name] !== BEGIN_STATEMENT.text)
        return new Error("the connection lost its prepared BEGIN statement");
      wire.stream.cork?.();
      try {
        wire.bind({ statement: BEGIN_STATEMENT.name });
        wire.execute({});
        return submit.call(this, wire);
      } finally {
        wire.stream.uncork?.();
      }
    };
    const complete = query.handleCommandComplete;
    let begun = false;
    query.handleCommandComplete = function (this: HookedQuery, message: unknown, wire: Wire) {
      if (!begun) {
        begun = true; // BEGIN's own
        return;
      }
      complete.call(this, message, wire);
    };
    return runSubmittable(this.connection, query as unknown as { callback: unknown });
  }
}
