import type { FullStore, FullStorePorts } from "@latchkey/core";
import { guardStore } from "@latchkey/core/internal";
import { sql } from "drizzle-orm";
import { drizzle, type AnyD1Database } from "drizzle-orm/d1";
import { accountsPort } from "../sqlite/accounts.ts";
import { apiKeysPort } from "../sqlite/api-keys.ts";
import { auditPort } from "../sqlite/audit.ts";
import { countersPort } from "../sqlite/counters.ts";
import type { SqliteDatabase } from "../sqlite/database.ts";
import { jwksPort } from "../sqlite/jwks.ts";
import { twoFactorPort } from "../sqlite/two-factor.ts";
import { passkeysPort } from "../sqlite/passkeys.ts";
import { organizationsPort } from "../sqlite/organizations.ts";
import { sessionsPort } from "../sqlite/sessions.ts";
import { socialAccountsPort } from "../sqlite/social-accounts.ts";
import { usersPort } from "../sqlite/users.ts";
import { verificationsPort } from "../sqlite/verifications.ts";
import type { D1DatabaseBinding } from "./binding.ts";
import { isD1Unavailable } from "../sqlite/errors.ts";
import { d1Transaction } from "./transaction.ts";

/**
 * The SQLite store's port implementations over a D1 binding. D1 has no interactive transactions: every atomic
 * change is one statement (upserts, conditional UPDATE ... RETURNING) or one `batch`, which D1 runs as one
 * implicit transaction; `transaction` compensates across writes (see d1Transaction). D1 enforces foreign keys;
 * the writes insert parents first and delete children first, as they do on libSQL.
 */
export function d1Store(binding: D1DatabaseBinding): FullStore {
  const db = drizzle(binding as unknown as AnyD1Database) as unknown as SqliteDatabase;
  const ports: FullStorePorts = {
    users: usersPort(db),
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
  // A busy, overloaded or unreachable database is 503 `DATABASE_UNAVAILABLE` (retry later), never a 500.
  return guardStore<FullStore>(
    {
      kind: "d1",
      ...ports,
      // Multi-row flows (sign-up: user + accounts + session) undo their creations when a later step fails.
      transaction: d1Transaction(db, ports),
      async ping() {
        await db.run(sql`select 1`);
      },
      // The binding belongs to the Workers runtime: nothing to release.
      async close() {},
    },
    isD1Unavailable,
  );
}
