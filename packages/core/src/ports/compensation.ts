import { overlay } from "./overlay.ts";
import type { StorePorts } from "./store.ts";

/**
 * How a store takes back one created row by its id, for stores without interactive transactions. Each deletes
 * exactly that row and nothing else; a row that is already gone is not an error.
 */
export interface CreationUndo {
  session(id: string): Promise<unknown>;
  account(id: string): Promise<unknown>;
  /** Deletes a created passkey row (a passkey-only sign-up creates the user, the passkey and the session). */
  passkey(id: string): Promise<unknown>;
  /**
   * Deletes a created user row, but only while no session, account or API key refers to it: the body's own
   * sessions and accounts are undone before this runs, so any still there was attached by another request (an
   * OTP sign-in that found the user meanwhile), and then the user stays with it. The user's pending
   * verification rows go with a deleted user.
   */
  user(id: string): Promise<unknown>;
}

// Undo steps run newest first. A failing step is passed over so the ones before it still run: what the caller
// sees is the error that made it roll back, never an undo's.
async function rollBack(steps: Array<() => Promise<unknown>>): Promise<void> {
  for (const step of steps.reverse()) {
    try {
      await step();
    } catch {
      // Passed over on purpose (see above).
    }
  }
}

/**
 * `Store.transaction` by compensation, for a store whose database cannot hold a transaction open across awaits
 * (Cloudflare D1, a standalone MongoDB server). Every port write must be atomic on its own (a user with its
 * accounts included). The body's creations are recorded (a user, a session, an account, a linked provider identity, a passkey) and, when the body throws,
 * deleted again newest first before the error is rethrown. Only the body's own rows are undone: a created user's
 * accounts and sessions by their ids, then the user itself only if nothing another request attached meanwhile
 * refers to it (`CreationUndo.user`).
 * Updates and deletes the body made before the throw stay: the flows that update write the new state first and
 * revoke second, so an interrupted one leaves a state a retry finishes.
 *
 * @example
 * const transaction = compensatingTransaction(ports, {
 *   session: (id) => sessions.deleteOne({ _id: id }),
 *   account: (id) => accounts.deleteOne({ _id: id }),
 *   passkey: (id) => passkeys.deleteOne({ _id: id }),
 *   user: (id) => deleteUserUnlessReferenced(id),
 * });
 */
export function compensatingTransaction<P extends StorePorts>(
  ports: P,
  undo: CreationUndo,
): <T>(body: (tx: P) => Promise<T>) => Promise<T> {
  return async (body) => {
    const undos: Array<() => Promise<unknown>> = [];
    const { users, sessions, accounts, socialAccounts, passkeys } = ports;
    const tracked: P = {
      ...ports,
      users: overlay(users, {
        async create(user, accounts) {
          const result = await users.create(user, accounts);
          if (result.ok) {
            // Newest first: the accounts created with the user go before the user.
            undos.push(() => undo.user(user.id));
            for (const a of accounts) undos.push(() => undo.account(a.id));
          }
          return result;
        },
      }),
      sessions: overlay(sessions, {
        async create(session) {
          const created = await sessions.create(session);
          if (created) undos.push(() => undo.session(session.id));
          return created;
        },
      }),
      accounts: overlay(accounts, {
        async create(account) {
          await accounts.create(account);
          undos.push(() => undo.account(account.id));
        },
      }),
      // A linked provider identity is an account row too.
      ...(socialAccounts
        ? {
            socialAccounts: overlay(socialAccounts, {
              async link(account) {
                const result = await socialAccounts.link(account);
                if (result === "linked") undos.push(() => undo.account(account.id));
                return result;
              },
            }),
          }
        : {}),
      ...(passkeys
        ? {
            passkeys: overlay(passkeys, {
              async insert(record) {
                const result = await passkeys.insert(record);
                if (result === "inserted") undos.push(() => undo.passkey(record.id));
                return result;
              },
            }),
          }
        : {}),
    };
    try {
      return await body(tracked);
    } catch (error) {
      await rollBack(undos);
      throw error;
    }
  };
}
