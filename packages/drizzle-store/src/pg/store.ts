import type { Store } from "@latchkey/core";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres, { type Sql } from "postgres";
import { pgApiKeyStore } from "./api-keys.ts";
import { pgAuditStore, pgJwkStore } from "./jwks.ts";
import { pgAccountStore, pgSessionStore, pgUserStore } from "./users.ts";
import { pgCounterStore, pgVerificationStore } from "./verifications.ts";

/** Opens a postgres.js pool for a URL; notices (e.g. "schema already exists") are not printed. */
export function openPostgres(url: string, max = 10): Sql {
  return postgres(url, { max, onnotice: () => undefined });
}

/** Builds the PostgreSQL store over a postgres.js client; `close` ends the client only when the store opened it. */
export function pgStore(client: Sql, ownsClient: boolean): Store {
  const db = drizzle({ client });
  return {
    kind: "postgres",
    users: pgUserStore(db),
    sessions: pgSessionStore(db),
    accounts: pgAccountStore(db),
    verifications: pgVerificationStore(db),
    counters: pgCounterStore(db),
    apiKeys: pgApiKeyStore(db),
    jwks: pgJwkStore(db),
    audit: pgAuditStore(db),
    async close() {
      if (ownsClient) await client.end({ timeout: 5 });
    },
  };
}
