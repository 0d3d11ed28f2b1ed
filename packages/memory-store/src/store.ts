import type {
  AccountRecord,
  ApiKeyRecord,
  ApiKeyUseResult,
  AuditRecord,
  CounterState,
  JwkRecord,
  Page,
  RevokedApiKey,
  SessionRecord,
  Store,
  UniqueResult,
  UserRecord,
  VerificationRecord,
} from "@latchkey/core";

// Every method does its whole read-modify-write synchronously, so it is atomic on JavaScript's single thread.
// Records are copied in and out so callers can never mutate stored state.
// A plain recursive copy: records hold only Dates, JSON values and primitives, and this is several times
// cheaper than structuredClone on the session lookup that runs on every authenticated request.
function copy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(copy) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copy((value as Record<string, unknown>)[key]);
  return out as T;
}

function page<T>(sorted: T[], limit: number, cursor: string | null, key: (t: T) => string): Page<T> {
  const start = cursor === null ? 0 : sorted.findIndex((t) => key(t) < cursor);
  const items = start < 0 ? [] : sorted.slice(start, start + limit);
  const last = items[items.length - 1];
  const more = start >= 0 && start + limit < sorted.length;
  return { items: items.map(copy), nextCursor: more && last ? key(last) : null };
}

// Sort key for keyset pagination: creation time (zero-padded) then id, newest first.
const orderKey = (at: Date, id: string) => `${String(at.getTime()).padStart(15, "0")}:${id}`;

/**
 * An in-memory store: for tests and local demos only (data dies with the process).
 *
 * @example
 * import { memoryStore } from "@latchkey/memory-store";
 * const auth = createAuth({ secret, database: memoryStore(), baseUrl: "http://localhost:3000", environment: "development" });
 */
export function memoryStore(): Store {
  const users = new Map<string, UserRecord>();
  const emails = new Map<string, string>();
  const usernames = new Map<string, string>();
  const sessions = new Map<string, SessionRecord>();
  const sessionsByHash = new Map<string, string>();
  const accounts = new Map<string, AccountRecord>();
  const verifications = new Map<string, VerificationRecord>();
  const counters = new Map<string, CounterState>();
  const apiKeys = new Map<string, ApiKeyRecord>();
  const apiKeysByHash = new Map<string, string>();
  const jwks = new Map<string, JwkRecord>();
  const audit: AuditRecord[] = [];

  const deleteSession = (id: string) => {
    const s = sessions.get(id);
    if (!s) return false;
    sessions.delete(id);
    sessionsByHash.delete(s.tokenHash);
    return true;
  };
  const deleteApiKey = (id: string) => {
    const k = apiKeys.get(id);
    if (!k) return null;
    apiKeys.delete(id);
    apiKeysByHash.delete(k.keyHash);
    return k;
  };

  // Transactions: the rows a transaction started from, restored when its body throws. Transactions run one at a
  // time (a chain of promises), so one never restores over another's writes. Counters and audit rows are not
  // part of it (counters count attempts whatever happens; events are emitted after a commit).
  const tables: Array<Map<string, unknown>> = [
    users,
    emails,
    usernames,
    sessions,
    sessionsByHash,
    accounts,
    verifications,
    apiKeys,
    apiKeysByHash,
    jwks,
  ];
  let queue: Promise<unknown> = Promise.resolve();
  const snapshot = () => tables.map((t) => new Map(t));
  const restore = (saved: ReturnType<typeof snapshot>) => {
    tables.forEach((t, i) => {
      t.clear();
      for (const [k, v] of saved[i]!) t.set(k, v);
    });
  };

  const store: Store = {
    kind: "memory",
    users: {
      async create(user, userAccounts): Promise<UniqueResult<UserRecord>> {
        if (emails.has(user.email)) return { ok: false, conflict: "email" };
        if (user.username !== null && usernames.has(user.username)) return { ok: false, conflict: "username" };
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
        for (const s of [...sessions.values()]) if (s.userId === id) deleteSession(s.id);
        for (const a of [...accounts.values()]) if (a.userId === id) accounts.delete(a.id);
        for (const k of [...apiKeys.values()]) if (k.userId === id) deleteApiKey(k.id);
        for (const v of [...verifications.values()]) if (v.userId === id) verifications.delete(v.id);
        return true;
      },
    },
    sessions: {
      async create(session) {
        sessions.set(session.id, copy(session));
        sessionsByHash.set(session.tokenHash, session.id);
      },
      async findByTokenHash(tokenHash) {
        const id = sessionsByHash.get(tokenHash);
        const s = id ? sessions.get(id) : undefined;
        const u = s ? users.get(s.userId) : undefined;
        return s && u ? { session: copy(s), user: copy(u) } : null;
      },
      async touch(id, expiresAt, updatedAt) {
        const s = sessions.get(id);
        if (s) sessions.set(id, { ...s, expiresAt: new Date(expiresAt), updatedAt: new Date(updatedAt) });
      },
      async delete(id) {
        return deleteSession(id);
      },
      async deleteByUser(userId, exceptId) {
        let n = 0;
        for (const s of [...sessions.values()])
          if (s.userId === userId && s.id !== exceptId && deleteSession(s.id)) n++;
        return n;
      },
      async deleteExpired(now) {
        let n = 0;
        for (const s of [...sessions.values()]) if (s.expiresAt <= now && deleteSession(s.id)) n++;
        return n;
      },
    },
    accounts: {
      async listByUser(userId) {
        return [...accounts.values()].filter((a) => a.userId === userId).map(copy);
      },
      async create(account) {
        accounts.set(account.id, copy(account));
      },
      async upsertPassword(userId, account) {
        const existing = [...accounts.values()].find((a) => a.userId === userId && a.providerId === "credential");
        if (existing)
          accounts.set(existing.id, {
            ...existing,
            passwordHash: account.passwordHash,
            updatedAt: new Date(account.updatedAt),
          });
        else accounts.set(account.id, copy(account));
      },
      async setPasswordIfAbsent(userId, account) {
        const existing = [...accounts.values()].find((a) => a.userId === userId && a.providerId === "credential");
        if (existing?.passwordHash) return false;
        if (existing)
          accounts.set(existing.id, {
            ...existing,
            passwordHash: account.passwordHash,
            updatedAt: new Date(account.updatedAt),
          });
        else accounts.set(account.id, copy(account));
        return true;
      },
      async deleteAllExcept(userId, keepProviderId) {
        let n = 0;
        for (const a of [...accounts.values()])
          if (a.userId === userId && a.providerId !== keepProviderId && accounts.delete(a.id)) n++;
        return n;
      },
    },
    verifications: {
      async issue(record) {
        for (const v of [...verifications.values()]) if (v.identifier === record.identifier) verifications.delete(v.id);
        verifications.set(record.id, copy(record));
      },
      async findByIdentifier(identifier) {
        const v = [...verifications.values()].find((r) => r.identifier === identifier);
        return v ? copy(v) : null;
      },
      async findByValueHash(valueHash) {
        const v = [...verifications.values()].find((r) => r.valueHash === valueHash);
        return v ? copy(v) : null;
      },
      async consume(id) {
        const v = verifications.get(id);
        if (!v) return null;
        verifications.delete(id);
        return copy(v);
      },
      async recordFailedAttempt(id, maxAttempts) {
        const v = verifications.get(id);
        if (!v) return null;
        const attemptCount = v.attemptCount + 1;
        if (attemptCount >= maxAttempts) {
          verifications.delete(id);
          return { attemptCount, destroyed: true };
        }
        verifications.set(id, { ...v, attemptCount });
        return { attemptCount, destroyed: false };
      },
      async deleteByIdentifier(identifier) {
        let n = 0;
        for (const v of [...verifications.values()]) if (v.identifier === identifier && verifications.delete(v.id)) n++;
        return n;
      },
      async deleteExpired(now) {
        let n = 0;
        for (const v of [...verifications.values()]) if (v.expiresAt <= now && verifications.delete(v.id)) n++;
        return n;
      },
    },
    counters: {
      async hit(key, windowMs, now) {
        const c = counters.get(key);
        const next =
          c && c.resetAt > now ? { count: c.count + 1, resetAt: c.resetAt } : { count: 1, resetAt: now + windowMs };
        counters.set(key, next);
        return { ...next };
      },
      async peek(key, now) {
        const c = counters.get(key);
        return c && c.resetAt > now ? { ...c } : null;
      },
      async delete(key) {
        counters.delete(key);
      },
      async rename(from, to) {
        const c = counters.get(from);
        counters.delete(from);
        counters.delete(to);
        if (c) counters.set(to, c);
      },
    },
    apiKeys: {
      async create(key) {
        apiKeys.set(key.id, copy(key));
        apiKeysByHash.set(key.keyHash, key.id);
      },
      async findByHash(keyHash) {
        const id = apiKeysByHash.get(keyHash);
        return id ? copy(apiKeys.get(id)!) : null;
      },
      async findById(id) {
        const k = apiKeys.get(id);
        return k ? copy(k) : null;
      },
      async listByUser(userId, { limit, cursor }) {
        const mine = [...apiKeys.values()].filter((k) => k.userId === userId);
        mine.sort((a, b) => (orderKey(b.createdAt, b.id) < orderKey(a.createdAt, a.id) ? -1 : 1));
        return page(mine, limit, cursor, (k) => orderKey(k.createdAt, k.id));
      },
      async update(id, userId, patch) {
        const k = apiKeys.get(id);
        if (!k || (userId !== null && k.userId !== userId)) return null;
        const next = { ...k, ...copy(patch) } as ApiKeyRecord;
        apiKeys.set(id, next);
        return copy(next);
      },
      async delete(id, userId) {
        const k = apiKeys.get(id);
        if (!k || (userId !== null && k.userId !== userId)) return null;
        return copy(deleteApiKey(id)!);
      },
      async deleteExpired(now, userId) {
        const gone: RevokedApiKey[] = [];
        for (const k of [...apiKeys.values()]) {
          if (
            k.expiresAt !== null &&
            k.expiresAt <= now &&
            (userId === null || k.userId === userId) &&
            deleteApiKey(k.id)
          )
            gone.push({ id: k.id, userId: k.userId });
        }
        return gone;
      },
      async consumeUse(id, now): Promise<ApiKeyUseResult> {
        const k = apiKeys.get(id);
        if (!k) return { ok: false, reason: "NOT_FOUND", key: null };
        if (!k.enabled) return { ok: false, reason: "KEY_DISABLED", key: copy(k) };
        if (k.expiresAt !== null && k.expiresAt <= now) return { ok: false, reason: "KEY_EXPIRED", key: copy(k) };
        if (k.remaining !== null && k.remaining <= 0) return { ok: false, reason: "USAGE_EXCEEDED", key: copy(k) };
        let requestCount = k.requestCount;
        let windowStart = k.windowStart;
        if (k.rateLimitMax !== null && k.rateLimitWindowMs !== null) {
          const fresh = windowStart === null || windowStart.getTime() + k.rateLimitWindowMs <= now.getTime();
          if (fresh) {
            requestCount = 0;
            windowStart = new Date(now);
          }
          if (requestCount >= k.rateLimitMax) return { ok: false, reason: "RATE_LIMITED", key: copy(k) };
          requestCount += 1;
        }
        const next: ApiKeyRecord = {
          ...k,
          remaining: k.remaining === null ? null : k.remaining - 1,
          requestCount,
          windowStart,
          lastUsedAt: new Date(now),
        };
        apiKeys.set(id, next);
        return { ok: true, key: copy(next) };
      },
    },
    jwks: {
      async list() {
        return [...jwks.values()].sort((a, b) => a.generation - b.generation).map(copy);
      },
      async insert(record) {
        for (const k of jwks.values()) if (k.generation === record.generation) return false;
        jwks.set(record.id, copy(record));
        return true;
      },
      async retireOthers(exceptId, at) {
        for (const k of jwks.values())
          if (k.id !== exceptId && k.retiredAt === null) jwks.set(k.id, { ...k, retiredAt: new Date(at) });
      },
      async deleteRetiredBefore(before) {
        let n = 0;
        for (const k of [...jwks.values()]) if (k.retiredAt !== null && k.retiredAt < before && jwks.delete(k.id)) n++;
        return n;
      },
    },
    audit: {
      async append(record) {
        audit.push(copy(record));
      },
      async list({ userId, limit, cursor }) {
        const rows = audit.filter((r) => userId === null || r.userId === userId);
        rows.sort((a, b) => (orderKey(b.at, b.id) < orderKey(a.at, a.id) ? -1 : 1));
        return page(rows, limit, cursor, (r) => orderKey(r.at, r.id));
      },
    },
    transaction<T>(body: (tx: Store) => Promise<T>): Promise<T> {
      const run = queue.then(async () => {
        const saved = snapshot();
        try {
          return await body(store);
        } catch (error) {
          restore(saved);
          throw error;
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    async ping() {},
    async close() {},
  };
  return store;
}
