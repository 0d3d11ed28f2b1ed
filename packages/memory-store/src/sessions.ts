import { banInForce, type SessionStore } from "@latchkey/core";
import { copy, dropSession, type MemoryDatabase } from "./database.ts";

/** `SessionStore` in memory, indexed by token hash, and by user (the table's index). */
export function sessionsPort(db: MemoryDatabase): SessionStore {
  const { users, sessions, sessionsByHash } = db;
  return {
    async create(session) {
      // What a foreign key does in the SQL stores: no session for a user that is not there, nor for one banned.
      const owner = users.get(session.userId);
      if (!owner || banInForce(owner, session.createdAt)) return false;
      sessions.set(session.id, copy(session));
      sessionsByHash.set(session.tokenHash, session.id);
      return true;
    },
    async findByTokenHash(tokenHash) {
      const id = sessionsByHash.get(tokenHash);
      const s = id ? sessions.get(id) : undefined;
      const u = s ? users.get(s.userId) : undefined;
      return s && u ? { session: copy(s), user: copy(u) } : null;
    },
    async listByUser(userId) {
      return sessions
        .rowsBy("user", userId)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        .map(copy);
    },
    async touch(id, expiresAt, updatedAt) {
      const s = sessions.get(id);
      if (s) sessions.set(id, { ...s, expiresAt: new Date(expiresAt), updatedAt: new Date(updatedAt) });
    },
    async delete(id) {
      return dropSession(db, id);
    },
    async deleteByUser(userId, exceptId) {
      let n = 0;
      for (const s of sessions.rowsBy("user", userId)) if (s.id !== exceptId && dropSession(db, s.id)) n++;
      return n;
    },
    async deleteImpersonatedBy(adminId) {
      const gone: Array<{ id: string; userId: string }> = [];
      for (const s of sessions.rowsBy("impersonator", adminId))
        if (dropSession(db, s.id)) gone.push({ id: s.id, userId: s.userId });
      return gone;
    },
    async deleteExpired(now, limit = Number.POSITIVE_INFINITY) {
      let n = 0;
      for (const s of [...sessions.values()]) {
        if (n >= limit) break;
        if (s.expiresAt <= now && dropSession(db, s.id)) n++;
      }
      return n;
    },
  };
}
