import type { FullStore, FullStorePorts } from "@latchkey/core";
import { eq } from "drizzle-orm";
import type { SqliteDatabase } from "../sqlite/database.ts";
import { accounts, sessions } from "../sqlite/schema.ts";

/**
 * `Store.transaction` on D1, which has no interactive transactions (a Worker cannot hold one open across awaits).
 * Each port write is already atomic on its own (one statement or one `batch`, e.g. a user with its accounts);
 * across writes, the body's creations are recorded and deleted again, newest first, when the body throws. A
 * created user goes with everything that hangs off it. Updates the body made before the throw stay: the flows
 * that update (password changes) write the new state first and revoke sessions second, so an interrupted one
 * leaves a state a retry finishes.
 */
export function d1Transaction(db: SqliteDatabase, ports: FullStorePorts): FullStore["transaction"] {
  return async (body) => {
    const undos: Array<() => Promise<unknown>> = [];
    const tracked: FullStorePorts = {
      ...ports,
      users: {
        ...ports.users,
        async create(user, userAccounts) {
          const result = await ports.users.create(user, userAccounts);
          if (result.ok) undos.push(() => ports.users.delete(user.id));
          return result;
        },
      },
      sessions: {
        ...ports.sessions,
        async create(session) {
          await ports.sessions.create(session);
          undos.push(() => db.delete(sessions).where(eq(sessions.id, session.id)));
        },
      },
      accounts: {
        ...ports.accounts,
        async create(account) {
          await ports.accounts.create(account);
          undos.push(() => db.delete(accounts).where(eq(accounts.id, account.id)));
        },
      },
    };
    try {
      return await body(tracked);
    } catch (error) {
      for (const undo of undos.reverse()) await undo().catch(() => undefined);
      throw error;
    }
  };
}
