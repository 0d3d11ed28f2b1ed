import { overlay } from "../ports/overlay.ts";
import type { ApiKeyRecord, SessionRecord, UserRecord } from "../ports/records.ts";
import type {
  AccountStore,
  ApiKeyStore,
  OrganizationStore,
  SessionStore,
  Store,
  StorePorts,
  UserStore,
} from "../ports/store.ts";
import { markSharedCopy, offerSharedPeek } from "../ports/shared-lookup.ts";
import type { LookupCache } from "./lookup-cache.ts";
import type { Invalidation } from "./invalidations.ts";

type SessionLookup = { session: SessionRecord; user: UserRecord };
type KeyLookup = { key: ApiKeyRecord; user: UserRecord };
type Note = (...list: Invalidation[]) => Promise<void> | void;

/**
 * The write methods of the ports, each noting what it changed: the session, the user, or the key. Which entries
 * those names drop is the cache's business (a user's invalidation ends its sessions', keys' and record's entries).
 * A sweep of expired sessions or reroll graces notes nothing: a cached entry carries its expiry and is refused by
 * it like the row would be.
 */
function noting(
  ports: StorePorts,
  note: Note,
): Pick<StorePorts, "users" | "sessions" | "accounts" | "apiKeys" | "organizations"> {
  /**
   * Runs one write and notes `what` once it returned (when `changed` says it changed something), or when it threw:
   * a write that failed may still have committed (a timeout after the commit), and an extra drop is harmless.
   */
  const write = async <T>(what: Invalidation, run: () => Promise<T>, changed: (result: T) => boolean = () => true) => {
    let result: T;
    try {
      result = await run();
    } catch (error) {
      await note(what);
      throw error;
    }
    if (changed(result)) await note(what);
    return result;
  };
  const user = (id: string): Invalidation => ({ kind: "user", id });
  const session = (id: string): Invalidation => ({ kind: "session", id });
  const key = (id: string): Invalidation => ({ kind: "key", id });
  const found = (result: unknown) => result !== null;
  const users: UserStore = overlay(ports.users, {
    update: (id, patch) => write(user(id), () => ports.users.update(id, patch), found),
    delete: (id) => write(user(id), () => ports.users.delete(id)),
  });
  const sessions: SessionStore = overlay(ports.sessions, {
    // Another instance's copy would still carry the old expiry (and might end a session that slid forward).
    touch: (id, expiresAt, updatedAt) => write(session(id), () => ports.sessions.touch(id, expiresAt, updatedAt)),
    delete: (id) => write(session(id), () => ports.sessions.delete(id)),
    // Also drops the kept session's entry: it is read again once, which is harmless.
    deleteByUser: (userId, exceptId) => write(user(userId), () => ports.sessions.deleteByUser(userId, exceptId)),
    // Each session it removed, by id (it names them): the impersonated users' own sessions stay cached.
    async deleteImpersonatedBy(adminId) {
      const gone = await ports.sessions.deleteImpersonatedBy(adminId);
      await note(...gone.map((s) => session(s.id)));
      return gone;
    },
  });
  // Password changes and resets end other sessions through `deleteByUser`; these writes end the user's entries
  // too, so nothing cached survives a credential change even where a flow keeps its sessions.
  const accounts: AccountStore = overlay(ports.accounts, {
    upsertPassword: (userId, account) => write(user(userId), () => ports.accounts.upsertPassword(userId, account)),
    setPasswordIfAbsent: (userId, account) =>
      write(
        user(userId),
        () => ports.accounts.setPasswordIfAbsent(userId, account),
        (set) => set,
      ),
    deleteAllExcept: (userId, keep) => write(user(userId), () => ports.accounts.deleteAllExcept(userId, keep)),
  });
  const keys = ports.apiKeys;
  const apiKeys: ApiKeyStore | undefined =
    keys &&
    overlay(keys, {
      update: (id, userId, patch, options) => write(key(id), () => keys.update(id, userId, patch, options), found),
      reroll: (id, userId, reroll) => write(key(id), () => keys.reroll(id, userId, reroll), found),
      delete: (id, userId) => write(key(id), () => keys.delete(id, userId), found),
      // Every argument passes through (a sweep's batch limit included).
      async deleteExpired(...args) {
        const removed = await keys.deleteExpired(...args);
        await note(...removed.map((k) => key(k.id)));
        return removed;
      },
    });
  // A session's active organization is part of the cached session: every instance must read the new one.
  const orgs = ports.organizations;
  const organizations: OrganizationStore | undefined =
    orgs &&
    overlay(orgs, {
      setActive: (sessionId, userId, organizationId) =>
        write(
          session(sessionId),
          () => orgs.setActive(sessionId, userId, organizationId),
          (set) => set,
        ),
    });
  return {
    users,
    sessions,
    accounts,
    ...(apiKeys ? { apiKeys } : {}),
    ...(organizations ? { organizations } : {}),
  };
}

/**
 * Entries are shared between requests: callers get their own deep copies of the records. A copy of an entry the cache holds
 * is marked with it, so what is derived from the records alone (the session's views and their JSON) is computed
 * once per entry (the entry is never changed in place: a change drops it).
 */
const copyLookup = (found: SessionLookup, shared: boolean): SessionLookup => {
  // Deep copies: the records' nested objects (`appMetadata`, the dates) are the entry's too.
  const copy = { session: structuredClone(found.session), user: structuredClone(found.user) };
  if (shared) markSharedCopy(copy, found);
  return copy;
};

const copyKeyLookup = (found: KeyLookup, shared: boolean): KeyLookup => {
  const copy = { key: structuredClone(found.key), user: structuredClone(found.user) };
  if (shared) markSharedCopy(copy, found);
  return copy;
};

/**
 * The store `createAuth({ cache })` hands the services: session lookups and API-key verifies (the key with its owner) come from
 * `cache` when it holds them; every write that ends or changes one invalidates it after its commit (a write in a
 * transaction once it has ended: committed, or failed, since a failure may follow the commit). Reads inside a transaction always go to
 * the store.
 */
export function cachedStore(store: Store, cache: LookupCache): Store {
  // Outside a transaction a port write is its own commit: it invalidates before it returns.
  const direct = noting(store, (...list) => cache.invalidate(list));

  const sessions: SessionStore = overlay(direct.sessions, {
    async findByTokenHash(tokenHash) {
      const key = `s:${tokenHash}`;
      const hit = cache.get<SessionLookup>(key);
      if (hit) return copyLookup(hit, true);
      const generation = cache.generation;
      const found = await store.sessions.findByTokenHash(tokenHash);
      if (!found) return null;
      const kept = cache.set(key, found, generation, { sessionId: found.session.id, userId: found.user.id });
      return copyLookup(found, kept);
    },
  });
  // Session validation reads the shared entry itself when the cache holds it (no copy, no promise); it changes
  // nothing in it, and goes through `findByTokenHash` above otherwise, which counts the miss.
  offerSharedPeek(sessions, (tokenHash) => cache.peek<SessionLookup>(`s:${tokenHash}`));
  const keys = direct.apiKeys && store.apiKeys;
  const apiKeys: ApiKeyStore | undefined =
    keys && direct.apiKeys
      ? overlay(direct.apiKeys, {
          // What a verify reads: the key and its owner, kept under the key hash and dropped by a change of
          // either (the key's id and the owner's id both index the entry).
          async findByHashWithOwner(keyHash) {
            const key = `k:${keyHash}`;
            const hit = cache.get<KeyLookup>(key);
            if (hit) return copyKeyLookup(hit, true);
            const generation = cache.generation;
            const found = await keys.findByHashWithOwner(keyHash);
            if (!found) return null;
            const kept = cache.set(key, found, generation, { keyId: found.key.id, userId: found.user.id });
            return copyKeyLookup(found, kept);
          },
          async touchLastUsed(id, now, resolutionMs) {
            await keys.touchLastUsed(id, now, resolutionMs);
            // A usage stamp, not a change of what the key may do: the entries here take it, nobody is told. The
            // patched entry is a new value (never changed in place), so what was derived from the old one ends.
            for (const entry of cache.keysOfApiKey(id))
              cache.patch<KeyLookup>(entry, (found) =>
                found.key.lastUsedAt !== null && found.key.lastUsedAt >= now
                  ? found
                  : { key: { ...found.key, lastUsedAt: now }, user: found.user },
              );
          },
        })
      : undefined;

  return {
    ...store,
    // Users are not cached by id: flows that read a user again just before a decision (the unverified-user sweep,
    // account changes) must see the store. Only what a request is authenticated with is cached.
    users: direct.users,
    sessions,
    accounts: direct.accounts,
    ...(apiKeys ? { apiKeys } : {}),
    ...(direct.organizations ? { organizations: direct.organizations } : {}),
    async transaction(body) {
      let noted: Invalidation[] = [];
      try {
        return await store.transaction((ports) => {
          // A retried body starts over: only the last attempt's writes are published.
          noted = [];
          const written = noting(ports, (...list) => void noted.push(...list));
          return body({ ...ports, ...written });
        });
      } finally {
        // After the commit; and after a failure too, like a single write: the error may have come after the
        // commit (a lost answer, a compensation that failed), and dropping entries nothing changed is harmless.
        await cache.invalidate(noted);
      }
    },
  };
}
