import type { FullStore, FullStorePorts } from "@latchkey/core";
import { guardPorts, guardStore } from "@latchkey/core/internal";
import { drizzle as drizzlePg, NodePgSession, NodePgTransaction } from "drizzle-orm/node-postgres";
import { PgDialect } from "drizzle-orm/pg-core";
import type pg from "pg";
import { accountsPort } from "./accounts.ts";
import { apiKeysPort } from "./api-keys.ts";
import { auditPort } from "./audit.ts";
import { isPgUnavailable } from "./errors.ts";
import { countersPort } from "./counters.ts";
import type { PgDatabase } from "./database.ts";
import { jwksPort } from "./jwks.ts";
import { twoFactorPort } from "./two-factor.ts";
import { passkeysPort } from "./passkeys.ts";
import { organizationsPort } from "./organizations.ts";
import { sessionsPort } from "./sessions.ts";
import { socialAccountsPort } from "./social-accounts.ts";
import { usersPort } from "./users.ts";
import { verificationsPort } from "./verifications.ts";
import { pgCacheCarrier } from "./cache-carrier.ts";
import { LeadingBegin } from "./leading-begin.ts";
import { leanPool } from "./lean-query.ts";
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
    twoFactor: twoFactorPort(db),
    passkeys: passkeysPort(db),
    organizations: organizationsPort(db),
    socialAccounts: socialAccountsPort(db),
  };
}

/**
 * Builds the PostgreSQL store over a node-postgres pool; `close` ends the pool only when the store opened it.
 * A postgres.js client goes through `@latchkey/drizzle-store/postgres-js` instead (see pg/postgres-js.ts).
 */
export function pgStore(client: pg.Pool, ownsClient: boolean): FullStore {
  const guard = (ports: FullStorePorts) => guardPorts(ports, isPgUnavailable);
  // Named prepared statements run as lean queries (lean-query.ts); a transaction's connection does the same.
  const db = drizzlePg({ client: leanPool(client) }) as unknown as PgDatabase;
  // Per pooled connection, built on its first transaction: the ports a transaction body gets (building them
  // prepares every port's statements), over a drizzle transaction object that holds nothing but the connection
  // (its nested transactions are savepoints on it), and the connection's leading BEGIN (leading-begin.ts).
  const perConnection = new WeakMap<pg.PoolClient, { ports: FullStorePorts; begin: LeadingBegin }>();
  const dialect = new PgDialect();
  const onConnection = (connection: pg.PoolClient) => {
    let on = perConnection.get(connection);
    if (on === undefined) {
      const begin = new LeadingBegin(connection);
      const session = new NodePgSession(begin.client as unknown as pg.PoolClient, dialect, undefined);
      const tx = new NodePgTransaction(dialect, session, undefined) as unknown as PgDatabase;
      on = { ports: guard(portsOf(tx, true)), begin };
      perConnection.set(connection, on);
    }
    return on;
  };
  return guardStore(
    {
      kind: "postgres",
      ...portsOf(db),
      async transaction(body) {
        // One connection for the whole transaction, released with the error when it broke: the pool then drops
        // it instead of handing a connection in an unknown state to the next request.
        const connection = await client.connect();
        let broken: Error | undefined;
        let live = true;
        const { ports, begin } = onConnection(connection);
        try {
          // BEGIN rides on the body's first statement, once the connection has the BEGIN statement prepared.
          if (begin.prepared()) begin.arm();
          else await begin.prepare();
          let result: Awaited<ReturnType<typeof body>>;
          try {
            result = await body(transactionPorts(ports, () => live));
          } catch (error) {
            live = false;
            // Nothing to roll back when the body sent no statement (its BEGIN never left).
            // A ROLLBACK that fails too (the connection is gone) leaves the body's error to report.
            if (!begin.pending())
              await connection.query("rollback").catch((rollbackError: unknown) => {
                broken = rollbackError instanceof Error ? rollbackError : new Error("rollback failed");
              });
            throw error;
          }
          live = false;
          if (!begin.pending()) await connection.query("commit");
          return result;
        } catch (error) {
          if (isPgUnavailable(error) || !(connection as unknown as { _queryable?: boolean })._queryable)
            broken ??= error instanceof Error ? error : new Error("transaction failed");
          throw error;
        } finally {
          live = false;
          begin.disarm();
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
