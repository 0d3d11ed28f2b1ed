import type { FullStore, FullStorePorts } from "@latchkey/core";
import { guardPorts, guardStore } from "@latchkey/core/internal";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import type pg from "pg";
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
import { pgCacheCarrier } from "./cache-carrier.ts";
import { transactionPorts } from "../transaction-ports.ts";

/** The store ports over a Drizzle PostgreSQL database (the same SQL whichever driver runs it). */
export function portsOf(db: PgDatabase, inTransaction = false): FullStorePorts {
  return {
    users: usersPort(db, inTransaction),
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
export function pgStore(client: pg.Pool, ownsClient: boolean): FullStore {
  const guard = (ports: FullStorePorts) => guardPorts(ports, isPgUnavailable);
  const db = drizzlePg({ client }) as unknown as PgDatabase;
  // The ports a transaction body gets, built once per pooled connection (building them prepares every port's
  // statements): over the first drizzle transaction object of that connection, which holds nothing but the
  // connection, so later transactions on it reuse them (a port's own nested transaction is a savepoint in it).
  const perConnection = new WeakMap<pg.PoolClient, { db: PgDatabase; ports?: FullStorePorts }>();
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
          let on = perConnection.get(connection);
          if (on === undefined) {
            on = { db: drizzlePg({ client: connection }) as unknown as PgDatabase };
            perConnection.set(connection, on);
          }
          const held = on;
          let live = true;
          try {
            return await held.db.transaction((tx) => {
              held.ports ??= guard(portsOf(tx as unknown as PgDatabase, true));
              return body(transactionPorts(held.ports, () => live));
            });
          } finally {
            live = false;
          }
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
      cacheCarrier: () => pgCacheCarrier(client),
    },
    isPgUnavailable,
  );
}
