import { compensatingTransaction, type FullStore, type FullStorePorts } from "@latchkey/core";
import type { ClientSession, Collection, Document } from "mongodb";
import type { Collections } from "./database.ts";
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
function collectionsIn(c: Collections, session: ClientSession): Collections {
  return {
    users: boundTo(c.users, session),
    sessions: boundTo(c.sessions, session),
    accounts: boundTo(c.accounts, session),
    verifications: boundTo(c.verifications, session),
    counters: boundTo(c.counters, session),
    apiKeys: boundTo(c.apiKeys, session),
    jwks: boundTo(c.jwks, session),
    audit: boundTo(c.audit, session),
    twoFactor: boundTo(c.twoFactor, session),
    passkeys: boundTo(c.passkeys, session),
    organizations: boundTo(c.organizations, session),
    members: boundTo(c.members, session),
    invitations: boundTo(c.invitations, session),
  };
}

/** Inside a transaction a port's own multi-document work joins it instead of opening another. */
function joined(session: ClientSession): Transactions {
  return { available: async () => true, run: (work) => work(session) };
}

/**
 * `Store.transaction` for MongoDB: a multi-document transaction where the deployment has them (the driver retries
 * the body on transient errors, so it runs again from the start); on a standalone server, compensation: the rows
 * the body created are deleted again, newest first, when it throws (updates and deletes it made stay).
 */
export function mongoTransaction(
  c: Collections,
  transactions: Transactions,
  portsFor: (c: Collections, tx: Transactions) => FullStorePorts,
  topLevel: FullStorePorts,
): FullStore["transaction"] {
  // A standalone server: core's compensation, undoing a created session or account by its id.
  const compensated = compensatingTransaction(topLevel, {
    session: (id) => c.sessions.deleteOne({ _id: id }),
    account: (id) => c.accounts.deleteOne({ _id: id }),
    passkey: (id) => c.passkeys.deleteOne({ _id: id }),
    // Without transactions the check and the delete are two steps: a session attached between them is removed
    // with the user (the window is one round trip, against the whole body before).
    user: async (id) => {
      const attached = await Promise.all([
        c.sessions.countDocuments({ userId: id }, { limit: 1 }),
        c.accounts.countDocuments({ userId: id }, { limit: 1 }),
        c.apiKeys.countDocuments({ userId: id }, { limit: 1 }),
      ]);
      if (attached.some((n) => n > 0)) return;
      if (await c.users.findOneAndDelete({ _id: id })) await c.verifications.deleteMany({ userId: id });
    },
  });
  return async (body) => {
    if (await transactions.available()) {
      return transactions.run((session) => body(portsFor(collectionsIn(c, session), joined(session))));
    }
    return compensated(body);
  };
}
