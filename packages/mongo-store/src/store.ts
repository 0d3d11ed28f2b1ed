import type { FullStore, FullStorePorts } from "@latchkey/core";
import { guardStore } from "@latchkey/core/internal";
import { MongoClient } from "mongodb";
import { accountsPort } from "./accounts.ts";
import { socialAccountsPort } from "./social-accounts.ts";
import { apiKeysPort } from "./api-keys.ts";
import { auditPort } from "./audit.ts";
import { collectionsOf } from "./database.ts";
import { resolveDatabaseName, transactionsFor } from "./connection.ts";
import { countersPort } from "./counters.ts";
import { jwksPort } from "./jwks.ts";
import { twoFactorPort } from "./two-factor.ts";
import { passkeysPort } from "./passkeys.ts";
import { organizationsPort } from "./organizations.ts";
import { sessionsPort } from "./sessions.ts";
import { usersPort } from "./users.ts";
import { verificationsPort } from "./verifications.ts";
import { isMongoUnavailable } from "./errors.ts";
import { mongoTransaction } from "./transaction.ts";

interface MongoStoreCommon {
  /** Database name; default: the connection string's database, else `latchkey`. */
  dbName?: string;
  /**
   * Multi-document transactions for user creation and deletion. Default: detected (replica set or sharded
   * cluster: yes; standalone: no, with compensating writes instead). Set it only to override the detection.
   */
  transactions?: boolean;
}

/**
 * Options of `mongoStore`: a connection string (the store owns and closes the client) or your own client.
 *
 * @example
 * import type { MongoStoreOptions } from "@latchkey/mongo-store";
 * const options: MongoStoreOptions = { client: new MongoClient(url), dbName: "auth" };
 */
export type MongoStoreOptions =
  | (MongoStoreCommon & { url: string; client?: undefined })
  | (MongoStoreCommon & { client: MongoClient; url?: undefined });

/**
 * A MongoDB store (official `mongodb` driver). Run `latchkey migrate --database <url>` (or `migrateMongo`) once
 * first: the unique indexes it creates are what make emails, usernames and key generations unique.
 * With `{ url }` the store creates the client and `close()` closes it; with `{ client }` the client stays yours.
 *
 * @example
 * import { mongoStore } from "@latchkey/mongo-store";
 * const database = mongoStore({ url: "mongodb://localhost:27017/app" });
 * const auth = createAuth({ secret, database, baseUrl: "https://app.example" });
 */
export function mongoStore(options: MongoStoreOptions): FullStore {
  const owned = options.client === undefined;
  const client = options.client ?? new MongoClient(options.url);
  const db = client.db(resolveDatabaseName(options.url ?? null, options.dbName));
  const collections = collectionsOf(db);
  const transactions = transactionsFor(client, options.transactions);
  const portsFor = (c: typeof collections, tx: typeof transactions): FullStorePorts => ({
    users: usersPort(c, tx),
    sessions: sessionsPort(c),
    accounts: accountsPort(c),
    verifications: verificationsPort(c),
    counters: countersPort(c),
    apiKeys: apiKeysPort(c),
    jwks: jwksPort(c),
    audit: auditPort(c),
    twoFactor: twoFactorPort(c),
    passkeys: passkeysPort(c),
    organizations: organizationsPort(c),
    socialAccounts: socialAccountsPort(c),
  });
  const ports = portsFor(collections, transactions);
  return guardStore(
    {
      kind: "mongodb",
      ...ports,
      // A replica set or sharded cluster: one multi-document transaction (every call of the body carries the
      // session). A standalone server: compensation, the rows the body created are deleted again on a throw.
      transaction: mongoTransaction(collections, transactions, portsFor, ports),
      async ping() {
        await db.command({ ping: 1 });
      },
      async close() {
        if (owned) await client.close();
      },
    },
    isMongoUnavailable,
  );
}
