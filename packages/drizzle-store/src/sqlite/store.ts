import type { FullStore, FullStorePorts } from "@latchkey/core";
import { guardStore, guardPorts } from "@latchkey/core/internal";
import type { Client, InStatement, Transaction } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { accountsPort } from "./accounts.ts";
import { apiKeysPort } from "./api-keys.ts";
import { auditPort } from "./audit.ts";
import { withWriteBatches } from "./connection.ts";
import { countersPort } from "./counters.ts";
import type { SqliteDatabase } from "./database.ts";
import { isSqliteUnavailable } from "./errors.ts";
import { fileReads, type FileReads } from "./file-reads.ts";
import type { EngineTransactions, SqliteReadDatabase } from "./read-through.ts";
import { sqliteCacheCarrier } from "./cache-carrier.ts";
import { jwksPort } from "./jwks.ts";
import { twoFactorPort } from "./two-factor.ts";
import { passkeysPort } from "./passkeys.ts";
import { organizationsPort } from "./organizations.ts";
import { sessionsPort } from "./sessions.ts";
import { socialAccountsPort } from "./social-accounts.ts";
import { usersPort } from "./users.ts";
import { verificationsPort } from "./verifications.ts";
import { transactionPorts } from "../transaction-ports.ts";

function portsOf(db: SqliteDatabase, reads: FileReads | null, inTransaction = false): FullStorePorts {
  return {
    users: usersPort(db, reads, inTransaction),
    sessions: sessionsPort(db, reads),
    accounts: accountsPort(db),
    verifications: verificationsPort(db, reads),
    counters: countersPort(db, reads),
    apiKeys: apiKeysPort(db, reads),
    jwks: jwksPort(db),
    audit: auditPort(db),
    twoFactor: twoFactorPort(db),
    passkeys: passkeysPort(db),
    organizations: organizationsPort(db),
    socialAccounts: socialAccountsPort(db),
  };
}

/**
 * The engine connection's drizzle as the port implementations take it: every port awaits what a query returns, and
 * an awaited synchronous result is the same value; `batch` runs its queries one after the other, which is what a
 * batch inside an open transaction does on the client too (the transaction, not the batch, makes them atomic).
 */
function asyncView(db: SqliteReadDatabase): SqliteDatabase {
  const batch = async (queries: readonly PromiseLike<unknown>[]) => {
    const results: unknown[] = [];
    for (const query of queries) results.push(await query);
    return results;
  };
  return Object.assign(Object.create(db) as SqliteReadDatabase, { batch }) as unknown as SqliteDatabase;
}

/**
 * A gate in front of a client: while a transaction is open every other statement of this store waits for it.
 * A libSQL transaction holds SQLite's write lock across awaits; a write from another request of the same process
 * meanwhile would spin in SQLite's (synchronous) busy handler on the very thread the transaction needs.
 */
function gated(client: Client): { client: Client; hold: () => Promise<() => void> } {
  let open: Promise<void> = Promise.resolve();
  const hold = async () => {
    let release!: () => void;
    const previous = open;
    open = new Promise<void>((resolve) => (release = resolve));
    await previous;
    return release;
  };
  const proxied = new Proxy(client, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => unknown;
      if (property !== "execute" && property !== "batch" && property !== "executeMultiple") return method.bind(target);
      return async (...args: unknown[]) => {
        await open;
        return method.apply(target, args);
      };
    },
  });
  return { client: proxied, hold };
}

/**
 * Rows a sweep deletes per statement on a libSQL `file:` database. Its statements run on the process's own thread,
 * and a delete's cost grows faster than its row count (each row leaves every index of the table; verifications
 * have four over random values): 1,000 rows held the event loop for 50-80 ms, 200 for 6-25 ms (docs/performance-notes.md,
 * "Sweeps and the event loop"). Servers (`libsql://`, D1) keep the default of 1,000.
 */
const FILE_SWEEP_BATCH_SIZE = 200;

/**
 * Builds the SQLite store over a libSQL client; `close` closes the client only when the store opened it. A store
 * that opened its own `file:` database also runs its hottest read-only lookups through statements prepared once on
 * a second connection (see file-reads.ts); writes and batches stay on the client.
 */
export function sqliteStore(client: Client, ownsClient: boolean, url?: string): FullStore {
  const gate = gated(client);
  const db = drizzle({ client: withWriteBatches(gate.client) });
  const reads: FileReads | null =
    ownsClient && url !== undefined && /^file:/i.test(url) ? fileReads(client, gate.hold) : null;
  const cacheCarrier = url === undefined ? null : sqliteCacheCarrier(url);
  // The ports a transaction body gets are built once (building them prepares every port's statements) over a
  // client that runs each statement in the transaction open now. The gate lets one transaction of this store be
  // open at a time, so "the open one" is well defined; a call outside any (a port kept past its body) fails.
  let open: Transaction | null = null;
  const current = () => {
    if (open === null) throw new Error("a transaction port was used after its transaction ended");
    return open;
  };
  const txClient = new Proxy(client, {
    get(target, property) {
      if (property === "execute") return (statement: InStatement) => current().execute(statement);
      // drizzle over the transaction: a port's own batch joins it (no BEGIN of its own).
      if (property === "batch") return (statements: InStatement[]) => current().batch(statements);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  let txPorts: FullStorePorts | null = null;
  // A file store runs its transactions on the engine's writer connection instead (see file-reads.ts): the same
  // ports, over statements SQLite compiled once, where the client compiles each statement of each call again.
  let engineTx: FullStorePorts | null = null;
  const engineTxPorts = (engine: EngineTransactions): FullStorePorts | null => {
    try {
      engineTx ??= guardPorts(portsOf(asyncView(engine.db), null, true), isSqliteUnavailable);
    } catch {
      // A statement that cannot be compiled yet (tables not migrated): the client runs this transaction.
      return null;
    }
    return engineTx;
  };
  const inEngineTransaction = async <T>(
    engine: EngineTransactions,
    ports: FullStorePorts,
    body: (tx: FullStorePorts) => Promise<T>,
  ): Promise<T> => {
    let live = true;
    engine.begin();
    try {
      const result = await body(transactionPorts(ports, () => live));
      engine.commit();
      return result;
    } catch (error) {
      try {
        engine.rollback();
      } catch {
        // The error that ended the transaction is the one to report.
      }
      throw error;
    } finally {
      live = false;
    }
  };
  return guardStore(
    {
      kind: "sqlite",
      ...(client.protocol === "file" ? { sweepBatchSize: FILE_SWEEP_BATCH_SIZE } : {}),
      ...portsOf(db, reads),
      async transaction(body) {
        const release = await gate.hold();
        try {
          const engine = reads && (await reads.transactions());
          const ports = engine && engineTxPorts(engine);
          if (engine && ports) return await inEngineTransaction(engine, ports, body);
          const tx = await client.transaction("write");
          open = tx;
          try {
            txPorts ??= guardPorts(portsOf(drizzle({ client: txClient }), null, true), isSqliteUnavailable);
            const result = await body(transactionPorts(txPorts, () => open === tx));
            await tx.commit();
            return result;
          } catch (error) {
            await tx.rollback().catch(() => undefined);
            throw error;
          } finally {
            open = null;
            tx.close();
          }
        } finally {
          release();
        }
      },
      async ping() {
        await gate.client.execute("select 1");
      },
      async close() {
        await reads?.close();
        if (ownsClient) client.close();
      },
      ...(cacheCarrier ? { cacheCarrier } : {}),
    },
    isSqliteUnavailable,
  );
}
