import type { Duration } from "@latchkey/core";
import { parseDuration } from "@latchkey/core/internal";
import pg from "pg";

/** Connection settings of a store that opens its own node-postgres pool (`drizzleStore({ dialect: "postgres", url })`). */
export interface PgPoolOptions {
  /** Longest wait for a connection: opening one, or a free one from a busy pool. Default 5 s. */
  connectTimeout?: Duration;
  /** Longest a statement may run (server `statement_timeout`, plus a client-side read timeout). Default 5 s. */
  queryTimeout?: Duration;
  /** Pool size. Default 10. */
  maxConnections?: number;
  /** Idle connections close after this. Default 30 s. */
  idleTimeout?: Duration;
}

export const PG_DEFAULTS = {
  connectTimeoutMs: 5000,
  queryTimeoutMs: 5000,
  maxConnections: 10,
  idleTimeoutMs: 30_000,
} as const;

const ms = (value: Duration | undefined, field: string, fallback: number) =>
  value === undefined ? fallback : parseDuration(value, field);

/**
 * Opens a node-postgres pool with bounded connect and query times. Errors of idle or busy connections (a server
 * restart, `pg_terminate_backend`) are reported on the pool and its clients as `error` events; Node would turn an
 * unlistened `error` event into a process crash, so each gets a listener that logs one line: the next query on
 * that connection fails (503 for the request), the pool replaces the connection, and the process lives.
 */
export function openPgPool(url: string, options: PgPoolOptions = {}): pg.Pool {
  const connectTimeoutMs = ms(options.connectTimeout, "connectTimeout", PG_DEFAULTS.connectTimeoutMs);
  const queryTimeoutMs = ms(options.queryTimeout, "queryTimeout", PG_DEFAULTS.queryTimeoutMs);
  const max = options.maxConnections ?? PG_DEFAULTS.maxConnections;
  if (!Number.isInteger(max) || max < 1) throw new RangeError("maxConnections must be a positive integer");
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: ms(options.idleTimeout, "idleTimeout", PG_DEFAULTS.idleTimeoutMs),
    // Server side: a slow statement is cancelled. Client side: a dropped network is noticed (the server's
    // cancellation never arrives then); a little later, so the server's cleaner error normally wins.
    statement_timeout: queryTimeoutMs,
    query_timeout: queryTimeoutMs + 250,
    keepAlive: true,
    application_name: "latchkey",
  });
  let lastLog = 0;
  const report = (error: Error) => {
    // At most one line a second: a restart drops every connection at once.
    const now = Date.now();
    if (now - lastLog < 1000) return;
    lastLog = now;
    console.error(`[latchkey] PostgreSQL connection lost: ${error.message.split("\n")[0]}`);
  };
  pool.on("error", report);
  pool.on("connect", (client) => client.on("error", report));
  return pool;
}
