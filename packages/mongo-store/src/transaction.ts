import type { FullStore, FullStorePorts } from "@latchkey/core";
import type { ClientSession, Collection, Document } from "mongodb";
import type { Collections } from "./collections.ts";
import type { Transactions } from "./connection.ts";

// Where each collection method the ports use takes its options: the session goes there.
const OPTIONS_AT: Record<string, number> = {
  insertOne: 1,
  insertMany: 1,
  findOne: 1,
  find: 1,
  deleteOne: 1,
  deleteMany: 1,
  findOneAndDelete: 1,
  countDocuments: 1,
  aggregate: 1,
  bulkWrite: 1,
  updateOne: 2,
  updateMany: 2,
  replaceOne: 2,
  findOneAndUpdate: 2,
  findOneAndReplace: 2,
  distinct: 2,
};

function boundTo<T extends Document>(collection: Collection<T>, session: ClientSession): Collection<T> {
  return new Proxy(collection, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => unknown;
      const at = typeof key === "string" ? OPTIONS_AT[key] : undefined;
      if (at === undefined) return method.bind(target);
      return (...args: unknown[]) => {
        const next = [...args];
        next[at] = { ...(next[at] as object | undefined), session };
        return method.apply(target, next);
      };
    },
  });
}

/** The collections with every call carrying `session`: what a transaction body's ports use. */
export function collectionsIn(c: Collections, session: ClientSession): Collections {
  return {
    users: boundTo(c.users, session),
    sessions: boundTo(c.sessions, session),
    accounts: boundTo(c.accounts, session),
    verifications: boundTo(c.verifications, session),
    counters: boundTo(c.counters, session),
    apiKeys: boundTo(c.apiKeys, session),
    jwks: boundTo(c.jwks, session),
    audit: boundTo(c.audit, session),
  };
}

/** Inside a transaction a port's own multi-document work joins it instead of opening another. */
export function joined(session: ClientSession): Transactions {
  return { available: async () => true, run: (work) => work(session) };
}

/**
 * Compensation for a standalone server (no transactions): the ports record what they created, and when the body
 * throws those rows are deleted again, newest first (a created user goes with everything that hangs off it).
 * Updates and deletes the body made before the throw stay.
 */
export function compensating(ports: FullStorePorts, c: Collections): { ports: FullStorePorts; undo(): Promise<void> } {
  const undos: Array<() => Promise<unknown>> = [];
  const tracked: FullStorePorts = {
    ...ports,
    users: {
      ...ports.users,
      async create(user, accounts) {
        const result = await ports.users.create(user, accounts);
        if (result.ok) undos.push(() => ports.users.delete(user.id));
        return result;
      },
    },
    sessions: {
      ...ports.sessions,
      async create(session) {
        await ports.sessions.create(session);
        undos.push(() => c.sessions.deleteOne({ _id: session.id }));
      },
    },
    accounts: {
      ...ports.accounts,
      async create(account) {
        await ports.accounts.create(account);
        undos.push(() => c.accounts.deleteOne({ _id: account.id }));
      },
    },
  };
  return {
    ports: tracked,
    async undo() {
      for (const undo of undos.reverse()) await undo().catch(() => undefined);
    },
  };
}

/**
 * `Store.transaction` for MongoDB: a multi-document transaction where the deployment has them (the driver retries
 * the body on transient errors, so it runs again from the start), compensation on a standalone server.
 */
export function mongoTransaction(
  c: Collections,
  transactions: Transactions,
  portsFor: (c: Collections, tx: Transactions) => FullStorePorts,
  topLevel: FullStorePorts,
): FullStore["transaction"] {
  return async (body) => {
    if (await transactions.available()) {
      return transactions.run((session) => body(portsFor(collectionsIn(c, session), joined(session))));
    }
    const journal = compensating(topLevel, c);
    try {
      return await body(journal.ports);
    } catch (error) {
      await journal.undo();
      throw error;
    }
  };
}
