/**
 * The store ports every store has (`CorePorts`): users, sessions, accounts, verifications and counters.
 * `store.ts` composes them into `Store`.
 */
import type { AccountRecord, CounterState, Page, SessionRecord, UserRecord, VerificationRecord } from "./records.ts";

/** Result of a write that may hit a unique constraint. */
export type UniqueResult<T> = { ok: true; value: T } | { ok: false; conflict: "email" | "username" };

export type UserPatch = Partial<
  Pick<
    UserRecord,
    | "name"
    | "image"
    | "metadata"
    | "appMetadata"
    | "username"
    | "email"
    | "emailVerified"
    | "updatedAt"
    | "banned"
    | "banReason"
    | "banExpires"
  >
>;

export interface UserStore {
  /** Inserts the user and its accounts together (all or nothing). Email/username uniqueness is enforced by the store. */
  create(user: UserRecord, accounts: AccountRecord[]): Promise<UniqueResult<UserRecord>>;
  findById(id: string): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
  findByUsername(username: string): Promise<UserRecord | null>;
  /** Applies the patch; null when the user does not exist. Unique fields conflict atomically. */
  update(id: string, patch: UserPatch): Promise<UniqueResult<UserRecord> | null>;
  /**
   * Deletes the user and every auth-owned row of theirs (sessions, accounts, verifications, and API keys when
   * the store has that port) in one atomic step. Audit rows stay. Returns false when the user was already gone.
   * With the organizations port: their memberships go too, and so does every organization whose only owner they
   * were, with its members, invitations and API keys (no organization is left without an owner).
   */
  delete(id: string): Promise<boolean>;
  /**
   * Users whose email is still unverified and who were created before `before`, oldest first, at most `limit`:
   * what the sweep deletes with `emailVerification.deleteUnverifiedAfter`.
   */
  listUnverifiedBefore(before: Date, limit: number): Promise<UserRecord[]>;
  /**
   * A page of users (the admin list). Without `search`: newest first (`createdAt`, then `id`, descending). With it:
   * the users whose `email` (stored lower-cased) or lower-cased `name` starts with `search.prefix` (given
   * lower-cased), in that field's order (then `id`), ascending. Each an index range in the SQL stores. `cursor` is
   * opaque (from a previous page); one that is not this store's answers an empty page.
   */
  listPage(query: { search: UserSearch | null; limit: number; cursor: string | null }): Promise<Page<UserRecord>>;
  /**
   * How many users `listPage` with this `search` would go through in all. With `atMost`, counting stops there: the
   * answer is `min(total, atMost)`, so a million users cost no more than `atMost` index entries (decision 0082).
   */
  count(search: UserSearch | null, atMost?: number): Promise<number>;
}

/** A prefix search of the admin list: `prefix` lower-cased, matched literally (no wildcards). */
export interface UserSearch {
  field: "email" | "name";
  prefix: string;
}

export interface SessionStore {
  /**
   * Inserts the session; false (and no row) when its user does not exist (e.g. deleted by a concurrent request) or
   * is banned at `session.createdAt` (`banned` and `banExpires` null or later). Atomic with a ban: of a ban (the flag
   * written, then the user's sessions deleted) and a session insert racing it, either the insert sees the ban or the
   * ban's delete sees the session. SQL stores decide in the insert (the user row locked for share on PostgreSQL);
   * others check the user after the insert and take the row back.
   */
  create(session: SessionRecord): Promise<boolean>;
  /** The session and its user in one lookup; null when unknown. Expiry is checked by the caller. */
  findByTokenHash(tokenHash: string): Promise<{ session: SessionRecord; user: UserRecord } | null>;
  /** Every session of the user, expired ones included, newest first (by `createdAt`, then `id`). */
  listByUser(userId: string): Promise<SessionRecord[]>;
  /** Sliding refresh. */
  touch(id: string, expiresAt: Date, updatedAt: Date): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** Deletes all sessions of the user except `exceptId`; returns how many went. */
  deleteByUser(userId: string, exceptId?: string): Promise<number>;
  /**
   * Deletes every session an admin started by impersonating someone (`impersonatedBy` = `adminId`): the admin lost
   * the authority it came from (demoted, banned, removed). Returns what went, each with its user, for the cache
   * and the events. Indexed (a partial index on `impersonatedBy`): impersonation sessions are few.
   */
  deleteImpersonatedBy(adminId: string): Promise<Array<{ id: string; userId: string }>>;
  /** Deletes sessions expired at `now` (`expiresAt <= now`), at most `limit` of them when given; returns how many went. */
  deleteExpired(now: Date, limit?: number): Promise<number>;
}

export interface AccountStore {
  listByUser(userId: string): Promise<AccountRecord[]>;
  create(account: AccountRecord): Promise<void>;
  /** Sets the password of the user's credential account, creating the account when missing. */
  upsertPassword(userId: string, account: AccountRecord): Promise<void>;
  /** Creates the credential account only when the user has no password yet; false when one exists (atomic). */
  setPasswordIfAbsent(userId: string, account: AccountRecord): Promise<boolean>;
  /** Deletes every account of the user whose provider is not `keepProviderId`. Returns how many went. */
  deleteAllExcept(userId: string, keepProviderId: string): Promise<number>;
}

export type FailedAttemptResult = { attemptCount: number; destroyed: boolean };

export interface VerificationStore {
  /** Deletes every row with the same identifier and inserts this one, atomically (each send rotates). */
  issue(record: VerificationRecord): Promise<void>;
  findByIdentifier(identifier: string): Promise<VerificationRecord | null>;
  findByValueHash(valueHash: string): Promise<VerificationRecord | null>;
  /** Deletes the row and returns it; null when already gone. Exactly one of N concurrent callers wins. */
  consume(id: string): Promise<VerificationRecord | null>;
  /**
   * Atomically increments `attemptCount`; when it reaches `maxAttempts` the row is deleted.
   * Null when the row was already gone.
   */
  recordFailedAttempt(id: string, maxAttempts: number): Promise<FailedAttemptResult | null>;
  deleteByIdentifier(identifier: string): Promise<number>;
  /** Deletes rows expired at `now` (`expiresAt <= now`), at most `limit` of them when given; returns how many went. */
  deleteExpired(now: Date, limit?: number): Promise<number>;
}

/** One counter a `CounterStore.hitGated` call hits: its key and the window a new count starts. */
export interface CounterHit {
  key: string;
  windowMs: number;
}

/** The gate of a `CounterStore.hitGated` call: `next` is hit only when the gate's new count is at most `max`. */
export interface GatingHit extends CounterHit {
  max: number;
}

/** What `CounterStore.hitGated` answers: the gate's new state, and `next`'s (null when the gate refused it). */
export interface GatedHits {
  gate: CounterState;
  next: CounterState | null;
}

export interface CounterStore {
  /**
   * Fixed-window counter: increments `key` and returns the new count. A window that ended at or before `now`
   * starts over at 1 with `resetAt = now + windowMs`. Atomic: N concurrent hits produce counts 1..N.
   */
  hit(key: string, windowMs: number, now: number): Promise<CounterState>;
  /** Current state, or null when absent or its window ended. */
  peek(key: string, now: number): Promise<CounterState | null>;
  /**
   * `peek` of several keys in one round trip: one state (or null) per key, in the order given. Optional: without
   * it, callers peek key by key (every bundled store has it; the lockout check peeks two keys per sign-in).
   */
  peekMany?(keys: readonly string[], now: number): Promise<Array<CounterState | null>>;
  /**
   * Two hits in one atomic step, the second gated by the first: hits `gate.key`, and `next.key` (another key) only
   * when the gate's new count is at most `gate.max`; answers both states, `next` null when the gate refused (then
   * `next.key` is not touched). Racing calls stay exact: of N concurrent calls on a gate with a fresh window and
   * `max` 1, exactly one hits `next`. Optional: without it, callers hit the gate, then `next` when admitted (one round
   * trip more; the email send limits' cooldown and budget). Every bundled store has it.
   */
  hitGated?(gate: GatingHit, next: CounterHit, now: number): Promise<GatedHits>;
  delete(key: string): Promise<void>;
  /** Moves a counter to a new key (username change moves lockout state); overwrites `to`. */
  rename(from: string, to: string): Promise<void>;
  /**
   * Deletes counters whose window ended at or before `now` (`resetAt <= now`), at most `limit` of them when given;
   * returns how many went. A store whose engine expires keys by itself (Redis) answers 0.
   */
  deleteExpired(now: number, limit?: number): Promise<number>;
  /** Releases connections of a counter store that has its own (e.g. Redis); absent on database-backed counters. */
  close?(): Promise<void>;
  /**
   * One cheap round trip to a counter store that has its own connection (e.g. Redis); throws when it does not
   * answer in time. `/health` calls it after the database's `ping`. Absent on database-backed counters.
   */
  ping?(): Promise<void>;
  /**
   * Called once by `createAuth` with values derived from the auth secret and `baseUrl`, before any other call.
   * A counter store in an engine shared by several apps (Redis) keys its records with them: identifiers (emails,
   * addresses) never appear in clear, and two apps never share a counter. Throws `AuthConfigError` when the
   * store is already bound to another app.
   */
  bind?(binding: CounterBinding): void;
}

/** What `createAuth` hands a counter store's `bind` (see `counterBinding` in `@latchkey/core`). */
export interface CounterBinding {
  /** 12 hex characters that differ between apps (HMAC of `baseUrl`'s origin under a key derived from the secret). */
  readonly namespace: string;
  /** A keyed hash of `value` (HMAC-SHA-256 under a key derived from the secret), 22 base64url characters. */
  keyOf(value: string): string;
}
