import type { Store } from "@latchkey/core";
import { createClient, type Client } from "@libsql/client";
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

/** Builds the SQLite store over a libSQL client; `close` closes the client only when the store opened it. */
export function sqliteStore(client: Client, ownsClient: boolean): Store {
  const db = drizzle({ client });
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
