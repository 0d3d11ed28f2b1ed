import { guardPorts, guardStore, parseDuration, type Duration, type Store, type StorePorts } from "@latchkey/core";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import pg from "pg";
import { accountsPort } from "./accounts.ts";
import { apiKeysPort } from "./api-keys.ts";
import { auditPort } from "./audit.ts";
import { isPgUnavailable } from "./errors.ts";
import { countersPort } from "./counters.ts";
import type { PgDatabase } from "./database.ts";
import { jwksPort } from "./jwks.ts";
import { sessionsPort } from "./sessions.ts";
import { usersPort } from "./users.ts";
import { verificationsPort } from "./verifications.ts";

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

/** The store ports over a Drizzle PostgreSQL database (the same SQL whichever driver runs it). */
export function portsOf(db: PgDatabase): StorePorts {
  return {
    users: usersPort(db),
    sessions: sessionsPort(db),
    accounts: accountsPort(db),
    verifications: verificationsPort(db),
    counters: countersPort(db),
    apiKeys: apiKeysPort(db),
    jwks: jwksPort(db),
    audit: auditPort(db),
  };
}

/**
 * Builds the PostgreSQL store over a node-postgres pool; `close` ends the pool only when the store opened it.
 * A postgres.js client goes through `@latchkey/drizzle-store/postgres-js` instead (see pg/postgres-js.ts).
 */
export function pgStore(client: pg.Pool, ownsClient: boolean): Store {
  const guard = (ports: StorePorts) => guardPorts(ports, isPgUnavailable);
  const db = drizzlePg({ client }) as unknown as PgDatabase;
  return guardStore(
    {
      kind: "postgres",
      ...portsOf(db),
      async transaction(body) {
        // One connection for the whole transaction, released with the error when it broke: the pool then drops
        // it instead of handing a connection in an unknown state to the next request.
        const connection = await client.connect();
        let broken: Error | undefined;
        try {
          return await drizzlePg({ client: connection }).transaction((tx) =>
            body(guard(portsOf(tx as unknown as PgDatabase))),
          );
        } catch (error) {
          if (isPgUnavailable(error) || !(connection as unknown as { _queryable?: boolean })._queryable)
            broken = error instanceof Error ? error : new Error("transaction failed");
          throw error;
        } finally {
          connection.release(broken);
        }
      },
      async ping() {
        await client.query("select 1");
      },
      async close() {
        if (ownsClient) await client.end();
      },
    },
    isPgUnavailable,
  );
}
