import type { Store } from "@latchkey/core";
import { createClient, type Client, type InStatement, type TransactionMode } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { sqliteApiKeyStore } from "./api-keys.ts";
import { sqliteAuditStore, sqliteJwkStore } from "./jwks.ts";
import { sqliteAccountStore, sqliteSessionStore, sqliteUserStore } from "./users.ts";
import { sqliteCounterStore, sqliteVerificationStore } from "./verifications.ts";

/** Opens a libSQL client for a `file:` or `libsql://` URL. */
export function openSqlite(url: string, authToken?: string): Client {
  // A busy timeout lets another process's write transaction on the same file finish instead of failing at once.
  return createClient({ url, ...(authToken === undefined ? {} : { authToken }), timeout: 5000 });
}

/**
 * The client as drizzle should see it: its `batch` (drizzle passes no mode, so libSQL would BEGIN DEFERRED) opens a
 * write transaction, BEGIN IMMEDIATE, which on a remote server also sends the batch straight to the primary.
 */
export function withWriteBatches(client: Client): Client {
  return new Proxy(client, {
    get(target, property) {
      if (property === "batch") return (statements: InStatement[], mode: TransactionMode = "write") => target.batch(statements, mode);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Builds the SQLite store over a libSQL client; `close` closes the client only when the store opened it. */
export function sqliteStore(client: Client, ownsClient: boolean): Store {
  const db = drizzle({ client: withWriteBatches(client) });
  return {
    kind: "sqlite",
    users: sqliteUserStore(db),
    sessions: sqliteSessionStore(db),
    accounts: sqliteAccountStore(db),
    verifications: sqliteVerificationStore(db),
    counters: sqliteCounterStore(db),
    apiKeys: sqliteApiKeyStore(db),
    jwks: sqliteJwkStore(db),
    audit: sqliteAuditStore(db),
    async close() {
      if (ownsClient) client.close();
    },
  };
}
