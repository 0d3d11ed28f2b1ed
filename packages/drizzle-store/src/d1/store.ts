import type { Store } from "@latchkey/core";
import { drizzle, type AnyD1Database } from "drizzle-orm/d1";
import { sqliteApiKeyStore } from "../sqlite/api-keys.ts";
import type { SqliteDatabase } from "../sqlite/database.ts";
import { sqliteAuditStore, sqliteJwkStore } from "../sqlite/jwks.ts";
import { sqliteAccountStore, sqliteSessionStore, sqliteUserStore } from "../sqlite/users.ts";
import { sqliteCounterStore, sqliteVerificationStore } from "../sqlite/verifications.ts";
import type { D1DatabaseBinding } from "./binding.ts";

/**
 * The SQLite store's port implementations over a D1 binding. D1 has no interactive transactions and needs none
 * here: every atomic change is one statement (upserts, conditional UPDATE ... RETURNING) or one `batch`, which D1
 * runs as one implicit transaction. D1 enforces foreign keys; the writes insert parents first and delete
 * children first, as they do on libSQL.
 */
export function d1Store(binding: D1DatabaseBinding): Store {
  const db = drizzle(binding as unknown as AnyD1Database) as unknown as SqliteDatabase;
  return {
    kind: "d1",
    users: sqliteUserStore(db),
    sessions: sqliteSessionStore(db),
    accounts: sqliteAccountStore(db),
    verifications: sqliteVerificationStore(db),
    counters: sqliteCounterStore(db),
    apiKeys: sqliteApiKeyStore(db),
    jwks: sqliteJwkStore(db),
    audit: sqliteAuditStore(db),
    // The binding belongs to the Workers runtime: nothing to release.
    async close() {},
  };
}
