import type {
  AccountRecord,
  ApiKeyRecord,
  AuditRecord,
  CounterState,
  JwkRecord,
  SessionRecord,
  UserRecord,
  VerificationRecord,
} from "@latchkey/core";

/**
 * The memory store's data: one map per table, plus the unique indexes (email, username, token hash, key hash)
 * as maps from value to id. Every port of one store shares one of these; every port method does its whole
 * read-modify-write synchronously, so it is atomic on JavaScript's single thread.
 */
export interface MemoryDatabase {
  users: Map<string, UserRecord>;
  emails: Map<string, string>;
  usernames: Map<string, string>;
  sessions: Map<string, SessionRecord>;
  sessionsByHash: Map<string, string>;
  accounts: Map<string, AccountRecord>;
  verifications: Map<string, VerificationRecord>;
  counters: Map<string, CounterState>;
  apiKeys: Map<string, ApiKeyRecord>;
  apiKeysByHash: Map<string, string>;
  jwks: Map<string, JwkRecord>;
  audit: AuditRecord[];
}

export function memoryDatabase(): MemoryDatabase {
  return {
    users: new Map(),
    emails: new Map(),
    usernames: new Map(),
    sessions: new Map(),
    sessionsByHash: new Map(),
    accounts: new Map(),
    verifications: new Map(),
    counters: new Map(),
    apiKeys: new Map(),
    apiKeysByHash: new Map(),
    jwks: new Map(),
    audit: [],
  };
}

/**
 * Records are copied in and out so callers can never mutate stored state. A plain recursive copy: records hold
 * only Dates, JSON values and primitives, and this is several times cheaper than structuredClone on the session
 * lookup that runs on every authenticated request.
 */
export function copy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(copy) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copy((value as Record<string, unknown>)[key]);
  return out as T;
}

/** Removes a session and its token-hash index entry; false when there was none. */
export function dropSession(db: MemoryDatabase, id: string): boolean {
  const s = db.sessions.get(id);
  if (!s) return false;
  db.sessions.delete(id);
  db.sessionsByHash.delete(s.tokenHash);
  return true;
}

/** Removes an API key and its key-hash index entries (current and rerolled value); the removed key, or null when there was none. */
export function dropApiKey(db: MemoryDatabase, id: string): ApiKeyRecord | null {
  const k = db.apiKeys.get(id);
  if (!k) return null;
  db.apiKeys.delete(id);
  db.apiKeysByHash.delete(k.keyHash);
  if (k.previousKeyHash !== null) db.apiKeysByHash.delete(k.previousKeyHash);
  return k;
}
