import type { SessionStore } from "@latchkey/core";
import { COLLECTION_NAMES, type Collections } from "./database.ts";
import { deleteMatching } from "./queries.ts";
import { sessionFromDoc, sessionToDoc, userFromDoc, type SessionDoc, type UserDoc } from "./documents.ts";

/** `SessionStore` over MongoDB: a session read is one aggregation joined with its user. */
export function sessionsPort(c: Collections): SessionStore {
  return {
    async create(session) {
      // No foreign keys: written first, the user checked second. A deletion removes the user first and its
      // sessions second, and a ban writes its flag first and deletes the sessions second, so either it sees this
      // row or this check sees the user gone or banned (and takes the row back).
      await c.sessions.insertOne(sessionToDoc(session));
      const allowed = {
        _id: { $eq: session.userId },
        $or: [{ banned: { $ne: true } }, { banExpires: { $lte: session.createdAt } }],
      };
      if ((await c.users.countDocuments(allowed, { limit: 1 })) > 0) return true;
      await c.sessions.deleteOne({ _id: { $eq: session.id } });
      return false;
    },
    async findByTokenHash(tokenHash) {
      // One round trip: the session joined with its user.
      const [row] = await c.sessions
        .aggregate<SessionDoc & { owner: UserDoc[] }>([
          { $match: { tokenHash: { $eq: tokenHash } } },
          { $limit: 1 },
          { $lookup: { from: COLLECTION_NAMES.users, localField: "userId", foreignField: "_id", as: "owner" } },
        ])
        .toArray();
      const owner = row?.owner[0];
      return row && owner ? { session: sessionFromDoc(row), user: userFromDoc(owner) } : null;
    },
    async listByUser(userId) {
      const docs = await c.sessions
        .find({ userId: { $eq: userId } })
        .sort({ createdAt: -1, _id: -1 })
        .toArray();
      return docs.map(sessionFromDoc);
    },
    async touch(id, expiresAt, updatedAt) {
      await c.sessions.updateOne({ _id: { $eq: id } }, { $set: { expiresAt, updatedAt } });
    },
    async delete(id) {
      return (await c.sessions.deleteOne({ _id: { $eq: id } })).deletedCount === 1;
    },
    async deleteByUser(userId, exceptId) {
      const filter =
        exceptId === undefined ? { userId: { $eq: userId } } : { userId: { $eq: userId }, _id: { $ne: exceptId } };
      return (await c.sessions.deleteMany(filter)).deletedCount;
    },
    async deleteImpersonatedBy(adminId) {
      // One document at a time, each delete atomic and naming what it removed (the cache drops each by id).
      const gone: Array<{ id: string; userId: string }> = [];
      for (;;) {
        const doc = await c.sessions.findOneAndDelete(
          { impersonatedBy: { $eq: adminId } },
          { projection: { _id: 1, userId: 1 } },
        );
        if (!doc) return gone;
        gone.push({ id: doc._id, userId: doc.userId });
      }
    },
    async deleteExpired(now, limit) {
      return deleteMatching(c.sessions, { expiresAt: { $lte: now } }, limit);
    },
  };
}
