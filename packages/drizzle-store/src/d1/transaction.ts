import { compensatingTransaction, type FullStore, type FullStorePorts } from "@latchkey/core";
import { eq } from "drizzle-orm";
import type { SqliteDatabase } from "../sqlite/database.ts";
import { accounts, sessions } from "../sqlite/schema.ts";

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
  });
}
