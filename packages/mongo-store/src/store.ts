import type { Store } from "@latchkey/core";
import { MongoClient } from "mongodb";
import { mongoAccountStore } from "./accounts.ts";
import { mongoApiKeyStore } from "./api-keys.ts";
import { mongoAuditStore } from "./audit.ts";
import { collectionsOf } from "./collections.ts";
import { resolveDatabaseName, transactionsFor } from "./connection.ts";
import { mongoCounterStore } from "./counters.ts";
import { mongoJwkStore } from "./jwks.ts";
import { mongoSessionStore } from "./sessions.ts";
import { mongoUserStore } from "./users.ts";
import { mongoVerificationStore } from "./verifications.ts";

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
export function mongoStore(options: MongoStoreOptions): Store {
  const owned = options.client === undefined;
  const client = options.client ?? new MongoClient(options.url);
  const db = client.db(resolveDatabaseName(options.url ?? null, options.dbName));
  const collections = collectionsOf(db);
  const transactions = transactionsFor(client, options.transactions);
  return {
    kind: "mongodb",
    users: mongoUserStore(collections, transactions),
    sessions: mongoSessionStore(collections),
    accounts: mongoAccountStore(collections),
    verifications: mongoVerificationStore(collections),
    counters: mongoCounterStore(collections),
    apiKeys: mongoApiKeyStore(collections),
    jwks: mongoJwkStore(collections),
    audit: mongoAuditStore(collections),
    async close() {
      if (owned) await client.close();
    },
  };
}
