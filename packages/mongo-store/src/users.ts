import type { AccountRecord, UniqueResult, UserRecord, UserSearch, UserStore } from "@latchkey/core";
import { decodeUserCursor, userPage } from "@latchkey/core/internal";
import type { UserDoc } from "./documents.ts";
import type { Collections } from "./database.ts";
import type { Transactions } from "./connection.ts";
import { accountToDoc, patchToSet, userFromDoc, userToDoc } from "./documents.ts";
import { userConflict } from "./errors.ts";
import { deleteMemberships } from "./organizations.ts";

// With transactions (replica set, sharded cluster) user + accounts and the delete cascade are all-or-nothing.
// A standalone server has none, so create inserts the user first (the unique email/username index decides a
// race) and deletes it again when the accounts fail; delete removes dependents, then the user, then sweeps again.

async function createWithoutTransaction(c: Collections, user: UserRecord, accounts: AccountRecord[]): Promise<void> {
  await c.users.insertOne(userToDoc(user));
  if (accounts.length === 0) return;
  try {
    await c.accounts.insertMany(accounts.map(accountToDoc), { ordered: true });
  } catch (error) {
    // Compensate: an ordered insert may have written some accounts before failing.
    await c.accounts.deleteMany({ _id: { $in: accounts.map((a) => a.id) } });
    await c.users.deleteOne({ _id: { $eq: user.id } });
    throw error;
  }
}

async function deleteDependents(c: Collections, userId: string): Promise<void> {
  await Promise.all([
    c.sessions.deleteMany({ userId: { $eq: userId } }),
    c.accounts.deleteMany({ userId: { $eq: userId } }),
    c.apiKeys.deleteMany({ userId: { $eq: userId } }),
    c.verifications.deleteMany({ userId: { $eq: userId } }),
    c.twoFactor.deleteOne({ _id: { $eq: userId } }),
    c.passkeys.deleteMany({ userId: { $eq: userId } }),
  ]);
}

/**
 * `UserStore` over MongoDB: the unique email and username indexes decide races; create and delete run in one
 * transaction where the deployment has them, with compensation where it does not.
 */
export function usersPort(c: Collections, tx: Transactions): UserStore {
  return {
    async create(user, accounts): Promise<UniqueResult<UserRecord>> {
      try {
        if (await tx.available()) {
          await tx.run(async (session) => {
            await c.users.insertOne(userToDoc(user), { session });
            if (accounts.length > 0)
              await c.accounts.insertMany(accounts.map(accountToDoc), { session, ordered: true });
          });
        } else {
          await createWithoutTransaction(c, user, accounts);
        }
      } catch (error) {
        const conflict = userConflict(error);
        if (conflict) return { ok: false, conflict };
        throw error;
      }
      return { ok: true, value: structuredClone(user) };
    },
    async findById(id) {
      const doc = await c.users.findOne({ _id: { $eq: id } });
      return doc ? userFromDoc(doc) : null;
    },
    async findByEmail(email) {
      const doc = await c.users.findOne({ email: { $eq: email } });
      return doc ? userFromDoc(doc) : null;
    },
    async findByUsername(username) {
      // The `$type` clause repeats the partial index's filter so the planner may use `username_unique`.
      const doc = await c.users.findOne({ username: { $eq: username, $type: "string" } });
      return doc ? userFromDoc(doc) : null;
    },
    async update(id, patch) {
      const set = patchToSet(patch);
      try {
        const doc =
          set === null
            ? await c.users.findOne({ _id: { $eq: id } })
            : await c.users.findOneAndUpdate({ _id: { $eq: id } }, { $set: set }, { returnDocument: "after" });
        return doc ? { ok: true, value: userFromDoc(doc) } : null;
      } catch (error) {
        const conflict = userConflict(error);
        if (conflict) return { ok: false, conflict };
        throw error;
      }
    },
    async delete(id) {
      // Memberships first, one atomic step each (an organization the user alone owns goes whole): a retry of an
      // interrupted delete finds fewer to do.
      await deleteMemberships(c, id);
      if (await tx.available()) {
        return tx.run(async (session) => {
          const gone = await c.users.findOneAndDelete({ _id: { $eq: id } }, { session });
          if (!gone) return false;
          // Sequential: a transaction's operations must not run in parallel.
          await c.sessions.deleteMany({ userId: { $eq: id } }, { session });
          await c.accounts.deleteMany({ userId: { $eq: id } }, { session });
          await c.apiKeys.deleteMany({ userId: { $eq: id } }, { session });
          await c.verifications.deleteMany({ userId: { $eq: id } }, { session });
          await c.twoFactor.deleteOne({ _id: { $eq: id } }, { session });
          await c.passkeys.deleteMany({ userId: { $eq: id } }, { session });
          return true;
        });
      }
      // Dependents first, so an interrupted delete leaves the user in place and can simply be run again; the
      // user's own delete decides which of several callers wins; the second sweep catches rows written meanwhile.
      await deleteDependents(c, id);
      const gone = await c.users.findOneAndDelete({ _id: { $eq: id } });
      if (!gone) return false;
      await deleteDependents(c, id);
      return true;
    },
    async listUnverifiedBefore(before, limit) {
      const docs = await c.users
        .find({ emailVerified: { $eq: false }, createdAt: { $lt: before } })
        .sort({ createdAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map(userFromDoc);
    },
    ...listing(c),
  };
}

/** The admin list's reads (`listPage`, `count`). */
function listing(c: Collections): Pick<UserStore, "listPage" | "count"> {
  return {
    async listPage({ search, limit, cursor }) {
      const after = cursor === null ? null : decodeUserCursor(cursor, search);
      if (cursor !== null && after === null) return { items: [], nextCursor: null };
      const pipeline: Record<string, unknown>[] = [...matchStages(search)];
      if (search === null) {
        if (after) {
          const at = new Date(Number(after.key));
          pipeline.push({
            $match: { $or: [{ createdAt: { $lt: at } }, { createdAt: { $eq: at }, _id: { $lt: after.id } }] },
          });
        }
        pipeline.push({ $sort: { createdAt: -1, _id: -1 } });
      } else {
        if (after)
          pipeline.push({
            $match: { $or: [{ key: { $gt: after.key } }, { key: { $eq: after.key }, _id: { $gt: after.id } }] },
          });
        pipeline.push({ $sort: { key: 1, _id: 1 } });
      }
      pipeline.push({ $limit: limit + 1 }, { $project: { key: 0 } });
      const docs = await c.users.aggregate<UserDoc>(pipeline).toArray();
      return userPage(docs.map(userFromDoc), limit, search);
    },
    async count(search, atMost) {
      const limit = atMost === undefined ? [] : [{ $limit: atMost }];
      const [row] = await c.users
        .aggregate<{ n: number }>([...matchStages(search), ...limit, { $count: "n" }])
        .toArray();
      return row?.n ?? 0;
    },
  };
}

/**
 * The stages that keep a search's users, each with its sort `key` (the email, or the lower-cased name). An email
 * prefix is a range of the unique email index (binary order); a name prefix is matched on the lower-cased name, a
 * scan (MongoDB cannot index an expression).
 */
function matchStages(search: UserSearch | null): Record<string, unknown>[] {
  if (search === null) return [];
  const range = { $gte: search.prefix, $lt: `${search.prefix}\u{10FFFF}` };
  if (search.field === "email") return [{ $match: { email: range } }, { $addFields: { key: "$email" } }];
  return [
    { $match: { name: { $type: "string" } } },
    { $addFields: { key: { $toLower: "$name" } } },
    { $match: { key: range } },
  ];
}
