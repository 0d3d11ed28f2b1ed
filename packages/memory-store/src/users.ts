import type { UniqueResult, UserRecord, UserSearch, UserStore } from "@latchkey/core";
import { decodeUserCursor, userListKey, userPage } from "@latchkey/core/internal";
import { dropMemberships } from "./organizations.ts";
import { copy, dropApiKey, dropSession, identityKey, type MemoryDatabase } from "./database.ts";

/** `UserStore` in memory: the email and username indexes decide uniqueness; delete takes every auth-owned row with it. */
export function usersPort(db: MemoryDatabase): UserStore {
  const { users, emails, usernames, sessions, accounts, verifications, apiKeys, twoFactor, passkeys } = db;
  return {
    async create(user, userAccounts): Promise<UniqueResult<UserRecord>> {
      if (emails.has(user.email)) return { ok: false, conflict: "email" };
      if (user.username !== null && usernames.has(user.username)) return { ok: false, conflict: "username" };
      // What the SQL stores' unique index on (provider_id, account_id) does: the insert fails, nothing is written.
      for (const a of userAccounts) {
        const key = identityKey(a);
        if (key !== null && accounts.firstBy("identity", key))
          throw new Error("the provider identity is linked already");
      }
      users.set(user.id, copy(user));
      emails.set(user.email, user.id);
      if (user.username !== null) usernames.set(user.username, user.id);
      for (const a of userAccounts) accounts.set(a.id, copy(a));
      return { ok: true, value: copy(user) };
    },
    async findById(id) {
      const u = users.get(id);
      return u ? copy(u) : null;
    },
    async findByEmail(email) {
      const id = emails.get(email);
      return id ? copy(users.get(id)!) : null;
    },
    async findByUsername(username) {
      const id = usernames.get(username);
      return id ? copy(users.get(id)!) : null;
    },
    async update(id, patch) {
      const u = users.get(id);
      if (!u) return null;
      if (patch.email !== undefined && patch.email !== u.email && emails.has(patch.email))
        return { ok: false, conflict: "email" };
      if (patch.username != null && patch.username !== u.username && usernames.has(patch.username))
        return { ok: false, conflict: "username" };
      const next: UserRecord = { ...u, ...copy(patch) } as UserRecord;
      if (next.email !== u.email) {
        emails.delete(u.email);
        emails.set(next.email, id);
      }
      if (next.username !== u.username) {
        if (u.username !== null) usernames.delete(u.username);
        if (next.username !== null) usernames.set(next.username, id);
      }
      users.set(id, next);
      return { ok: true, value: copy(next) };
    },
    async delete(id) {
      const u = users.get(id);
      if (!u) return false;
      users.delete(id);
      emails.delete(u.email);
      if (u.username !== null) usernames.delete(u.username);
      // The user's rows through each table's user index: the cascade costs what it removes.
      for (const s of sessions.rowsBy("user", id)) dropSession(db, s.id);
      for (const a of accounts.rowsBy("user", id)) accounts.delete(a.id);
      for (const k of apiKeys.rowsBy("user", id)) dropApiKey(db, k.id);
      for (const v of verifications.rowsBy("user", id)) verifications.delete(v.id);
      twoFactor.delete(id);
      for (const p of passkeys.rowsBy("user", id)) passkeys.delete(p.id);
      dropMemberships(db, id);
      return true;
    },
    async listUnverifiedBefore(before, limit) {
      return [...users.values()]
        .filter((u) => !u.emailVerified && u.createdAt < before)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .slice(0, limit)
        .map(copy);
    },
    async listPage({ search, limit, cursor }) {
      const after = cursor === null ? null : decodeUserCursor(cursor, search);
      if (cursor !== null && after === null) return { items: [], nextCursor: null };
      const sorted = matching(search);
      const start = after === null ? 0 : sorted.findIndex((u) => comesAfter(u, after, search));
      const rows = start < 0 ? [] : sorted.slice(start, start + limit + 1);
      return userPage(rows.map(copy), limit, search);
    },
    async count(search, atMost) {
      const n = matching(search).length;
      return atMost === undefined ? n : Math.min(n, atMost);
    },
  };

  /** The users a listing goes through, in its order. */
  function matching(search: UserSearch | null): UserRecord[] {
    const all = [...users.values()];
    if (search === null)
      return all.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (b.id < a.id ? -1 : 1));
    return all
      .filter((u) => (search.field === "email" || u.name !== null) && userListKey(u, search).startsWith(search.prefix))
      .sort((a, b) => compare(userListKey(a, search), userListKey(b, search)) || compare(a.id, b.id));
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Whether `u` comes after the position `after` in the listing's order. */
function comesAfter(u: UserRecord, after: { key: string; id: string }, search: UserSearch | null): boolean {
  if (search === null) {
    const at = u.createdAt.getTime();
    const key = Number(after.key);
    return at < key || (at === key && u.id < after.id);
  }
  const key = userListKey(u, search);
  return key > after.key || (key === after.key && u.id > after.id);
}
