import { compensatingTransaction, type FullStore, type FullStorePorts } from "@latchkey/core";
import { and, eq, notExists } from "drizzle-orm";
import type { SqliteDatabase } from "../sqlite/database.ts";
import { accounts, apiKeys, passkeys, sessions, users, verifications } from "../sqlite/schema.ts";

/**
 * `Store.transaction` on D1, which has no interactive transactions (a Worker cannot hold one open across awaits).
 * Each port write is already atomic on its own (one statement or one `batch`, e.g. a user with its accounts);
 * across writes, core's compensation records the body's creations and deletes them again, newest first, when the
 * body throws. What is D1's own here is how one created session or account row is deleted.
 */
export function d1Transaction(db: SqliteDatabase, ports: FullStorePorts): FullStore["transaction"] {
  return compensatingTransaction(ports, {
    session: (id) => db.delete(sessions).where(eq(sessions.id, id)),
    account: (id) => db.delete(accounts).where(eq(accounts.id, id)),
    passkey: (id) => db.delete(passkeys).where(eq(passkeys.id, id)),
    // One batch (one implicit transaction): the user goes only while nothing refers to it, and its verification
    // rows only when the user went.
    user: (id) =>
      db.batch([
        db
          .delete(users)
          .where(
            and(
              eq(users.id, id),
              notExists(db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, id))),
              notExists(db.select({ id: accounts.id }).from(accounts).where(eq(accounts.userId, id))),
              notExists(db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.userId, id))),
            ),
          ),
        db
          .delete(verifications)
          .where(
            and(
              eq(verifications.userId, id),
              notExists(db.select({ id: users.id }).from(users).where(eq(users.id, id))),
            ),
          ),
      ]),
  });
}
