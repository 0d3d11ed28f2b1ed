import type {
  AccountRecord,
  ApiKeyRecord,
  AuditRecord,
  CounterState,
  JsonObject,
  JwkRecord,
  Page,
  Permissions,
  SessionRecord,
  TwoFactorRecord,
  PasskeyRecord,
  InvitationRecord,
  MemberRecord,
  OrganizationRecord,
  UserRecord,
  VerificationRecord,
} from "./records.ts";
import type { CacheCarrier } from "./cache-carrier.ts";

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

export type ApiKeyPatch = Partial<
  Pick<
    ApiKeyRecord,
    | "name"
    | "enabled"
    | "locked"
    | "metadata"
    | "serverMetadata"
    | "permissions"
    | "remaining"
    | "refillAmount"
    | "refillIntervalMs"
    | "lastRefillAt"
    | "rateLimitMax"
    | "rateLimitWindowMs"
    | "expiresAt"
    | "updatedAt"
  >
>;

/** A key removed by a sweep. */
export type RevokedApiKey = Pick<ApiKeyRecord, "id" | "userId">;

/** Why an atomic use of an API key was refused. */
export type ApiKeyUseRefusal = "NOT_FOUND" | "KEY_DISABLED" | "KEY_EXPIRED" | "USAGE_EXCEEDED" | "RATE_LIMITED";

export type ApiKeyUseResult =
  | { ok: true; key: ApiKeyRecord }
  | { ok: false; reason: ApiKeyUseRefusal; key: ApiKeyRecord | null };

/** What `ApiKeyStore.reroll` writes: the new value's hash and display start, and how long the old value lives. */
export interface ApiKeyReroll {
  keyHash: string;
  start: string;
  /** The replaced value keeps verifying until then; null ends it at once (it is not kept at all). */
  graceUntil: Date | null;
  at: Date;
}

export interface ApiKeyStore {
  /**
   * Inserts the key. With `maxPerUser`, only while the owner has fewer keys than that, decided atomically (N
   * concurrent creates at the cap minus one admit exactly one); false when the owner is at the cap.
   * `"owner-gone"` when the owner does not exist (deleted by a concurrent request): nothing is written, as
   * `SessionStore.create` answers false, never a foreign-key error nor a key without its owner.
   * A key with an `organizationId` is inserted only while its owner is a member of that organization, decided
   * atomically with the organization's deletion (no key of a deleted organization is ever left):
   * `"organization-gone"` otherwise, with nothing written.
   */
  create(
    key: ApiKeyRecord,
    options?: { maxPerUser?: number | null },
  ): Promise<boolean | "owner-gone" | "organization-gone">;
  /**
   * The key whose current value (`keyHash`) or rerolled value (`previousKeyHash`) has this hash. The caller tells
   * which matched and checks `previousKeyExpiresAt`.
   */
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /**
   * `findByHash` and the key's owner in one read (a join; one lookup; one aggregation): what a verify needs. Null
   * when no key has this hash or its owner is gone (a key never verifies without its owner).
   */
  findByHashWithOwner(keyHash: string): Promise<{ key: ApiKeyRecord; user: UserRecord } | null>;
  findById(id: string): Promise<ApiKeyRecord | null>;
  /** Newest first; `cursor` is opaque (from a previous page). */
  listByUser(userId: string, options: { limit: number; cursor: string | null }): Promise<Page<ApiKeyRecord>>;
  /** The keys of an organization (`organizationId`), whoever created them; newest first, like `listByUser`. */
  listByOrganization(
    organizationId: string,
    options: { limit: number; cursor: string | null },
  ): Promise<Page<ApiKeyRecord>>;
  /**
   * Updates a key owned by `userId` (or any owner when `userId` is null); null when not found. With
   * `unlessLocked`, a locked key is left unchanged and null is answered (one conditional write, so an operator's
   * lock landing between the owner's read and write still wins).
   */
  update(
    id: string,
    userId: string | null,
    patch: ApiKeyPatch,
    options?: { unlessLocked?: boolean },
  ): Promise<ApiKeyRecord | null>;
  /**
   * Replaces the key's value in one atomic write: the current hash becomes `previousKeyHash` until `graceUntil`
   * (or is dropped when null), so a second reroll ends the first old value at once (at most two values verify).
   * Sets `rerolledAt` and `updatedAt` to `at`. Null when the key (of `userId`, when not null) does not exist.
   */
  reroll(id: string, userId: string | null, reroll: ApiKeyReroll): Promise<ApiKeyRecord | null>;
  /**
   * Clears `previousKeyHash` of every key whose grace ended at `now` (`previousKeyExpiresAt <= now`), of at most
   * `limit` keys when given (the sweep's batches); how many.
   */
  deleteExpiredRerolls(now: Date, limit?: number): Promise<number>;
  /**
   * Records a successful use of a key without a quota or limit: sets `lastUsedAt = now` only when it is null or at
   * least `resolutionMs` old (one conditional write; most calls change nothing).
   */
  touchLastUsed(id: string, now: Date, resolutionMs: number): Promise<void>;
  delete(id: string, userId: string | null): Promise<ApiKeyRecord | null>;
  /**
   * Deletes keys expired at `now` (`expiresAt <= now`), of one user or (null) all users, at most `limit` of them
   * when given (the sweep's batches), and returns the id and owner of each deleted key (the service emits one
   * `ApiKeyRevoked` per key).
   */
  deleteExpired(now: Date, userId: string | null, limit?: number): Promise<RevokedApiKey[]>;
  /**
   * One atomic conditional update: the key must be enabled, unexpired at `now`, have `remaining` > 0 (or null, or a
   * refill due), and be under its per-key window limit. A refill is due when `refillAmount` and `refillIntervalMs`
   * are set and `lastRefillAt + refillIntervalMs <= now`: the same write then sets `remaining = refillAmount - 1`
   * and `lastRefillAt = now`, so concurrent uses at the refill instant refill once. Otherwise `remaining` drops by
   * one (when not null), the window count rises (a window that ended restarts), `lastUsedAt = now`. Exactly
   * `remaining` of N concurrent uses win.
   */
  consumeUse(id: string, now: Date): Promise<ApiKeyUseResult>;
}

/** What `SocialAccountStore.updateTokens` writes: the sealed provider tokens, their expiries and scopes. */
export type AccountTokens = Pick<
  AccountRecord,
  "accessToken" | "refreshToken" | "idToken" | "accessTokenExpiresAt" | "refreshTokenExpiresAt" | "scope" | "updatedAt"
>;

/** What `SocialAccountStore.link` answers: written, the provider identity already linked (to anyone), or no such user. */
export type LinkResult = "linked" | "taken" | "owner-gone";

/** What `SocialAccountStore.unlink` answers: deleted, refused because it is the user's last account, or not found. */
export type UnlinkResult = "unlinked" | "last" | "not-found";

/**
 * Linked social accounts (OAuth 2.0 / OpenID Connect): rows of the accounts table with a provider subject
 * (`accountId`), one user per `(providerId, accountId)`. What `oauth()` needs beyond `AccountStore`.
 */
export interface SocialAccountStore {
  /**
   * The account of this provider identity and its user, in one read (a join; one lookup); null when none. Found
   * by the provider's subject, never by email.
   */
  findByProviderAccount(
    providerId: string,
    accountId: string,
  ): Promise<{ account: AccountRecord; user: UserRecord } | null>;
  /**
   * Inserts the account (its `accountId` set). `"taken"` when the provider identity is linked already, to this or
   * another user (the unique `(providerId, accountId)` decides, so of N concurrent links exactly one wins);
   * `"owner-gone"` when the user does not exist: nothing is written.
   */
  link(account: AccountRecord): Promise<LinkResult>;
  /** Replaces the account's tokens; null when the account is gone. */
  updateTokens(id: string, tokens: AccountTokens): Promise<AccountRecord | null>;
  /**
   * Deletes account `id` of `userId` unless it is the user's last account (of any provider): `"last"` then, and
   * nothing changes. Atomic: of two concurrent unlinks of a user's only two accounts, one answers `"last"`.
   */
  unlink(userId: string, id: string): Promise<UnlinkResult>;
}

/** What `PasskeyStore.insert` did: `"taken"` when the credential id is registered already (to anyone). */
export type PasskeyInsertResult = "inserted" | "taken" | "owner-gone";

/** What `PasskeyStore.delete` did: `"last"` when it is the user's last way to sign in (nothing changes). */
export type PasskeyDeleteResult = "deleted" | "last" | "not-found";

/**
 * Users' passkeys (`passkeys()`). Credential ids are unique over every user; the counter advances by
 * compare-and-set; a user's deletion takes their passkeys with it.
 */
export interface PasskeyStore {
  /**
   * Inserts the passkey. `"taken"` when its credential id is registered already (the unique index decides, so of
   * N concurrent registrations of one credential exactly one wins); `"owner-gone"` when the user does not exist.
   */
  insert(record: PasskeyRecord): Promise<PasskeyInsertResult>;
  /** The user's passkeys, oldest first. */
  listByUser(userId: string): Promise<PasskeyRecord[]>;
  findByCredentialId(credentialId: string): Promise<PasskeyRecord | null>;
  /** Renames passkey `id` of `userId`; null when there is no such passkey of that user. */
  rename(userId: string, id: string, name: string): Promise<PasskeyRecord | null>;
  /**
   * Records a sign-in: sets `counter` to `next`, `backedUp` and `lastUsedAt`, only while the stored counter is still
   * `expected`. False otherwise (a racing sign-in advanced it, or the passkey is gone): of two concurrent sign-ins
   * that read the same counter at most one advances it (both succeed only when the counter stays 0).
   */
  recordUse(id: string, expected: number, next: number, backedUp: boolean, at: Date): Promise<boolean>;
  /**
   * Deletes passkey `id` of `userId` unless it is the user's last way to sign in (no account row and no other
   * passkey): `"last"` then, and nothing changes. Atomic: of two concurrent deletes of a user's only two passkeys,
   * one answers `"last"`. With `evenLast` the rule is not applied (a registration whose session ended meanwhile
   * takes back its own passkey, even when it is all the user has left).
   */
  delete(userId: string, id: string, options?: { evenLast?: boolean }): Promise<PasskeyDeleteResult>;
  /**
   * Deletes every passkey of `userId`, the last way to sign in included (a first proof of the mailbox removes what
   * an unverified registrant set up); returns the ids of those that went, each exactly once across concurrent
   * calls (so each is announced once, and a passkey inserted meanwhile is either named here or still there).
   */
  deleteAllByUser(userId: string): Promise<string[]>;
}

/** What `OrganizationStore.create` did. */
export type OrganizationCreateResult = "created" | "slug-taken" | "owner-gone";

/** The fields `OrganizationStore.update` may change. */
export type OrganizationPatch = Partial<Pick<OrganizationRecord, "name" | "slug" | "logo" | "metadata">>;

/** What `OrganizationStore.addMember` did. */
export type MemberAddResult = "added" | "exists" | "limit" | "organization-gone" | "user-gone";

/** What a write guarded by the last-owner rule did: the member as written (or removed), or why nothing changed. */
export type OwnerGuardedResult =
  | { ok: true; member: MemberRecord; previousRole: string }
  | { ok: false; reason: "not-found" | "last-owner" };

/** What `OrganizationStore.acceptInvitation` did. */
export type AcceptInvitationResult =
  | { ok: true; member: MemberRecord; invitation: InvitationRecord }
  | { ok: false; reason: "not-found" | "not-pending" | "expired" | "wrong-email" | "exists" | "limit" };

/** Who accepts an invitation: the new member row's id and time, the user and their (verified) email. */
export interface InvitationAcceptance {
  memberId: string;
  userId: string;
  email: string;
  at: Date;
}

/**
 * Organizations, their members and invitations (`organizations()`). Every write that could break "every
 * organization has an owner" (a member with the role `"owner"`) or "one membership per user and organization" decides in one atomic step: of a
 * parallel demotion and leave of an organization's last two owners one answers `"last-owner"`, and of two parallel
 * accepts of one invitation exactly one adds the member.
 */
export interface OrganizationStore {
  /** Inserts the organization and its first member (an owner) together; nothing when the slug is taken or the user is gone. */
  create(organization: OrganizationRecord, owner: MemberRecord): Promise<OrganizationCreateResult>;
  findById(id: string): Promise<OrganizationRecord | null>;
  findBySlug(slug: string): Promise<OrganizationRecord | null>;
  /** Applies the patch; null when the organization is gone, `"slug-taken"` when another one has the new slug. */
  update(id: string, patch: OrganizationPatch): Promise<OrganizationRecord | "slug-taken" | null>;
  /**
   * Deletes the organization with its members, invitations and API keys (`ApiKeyRecord.organizationId`), and clears
   * it as the active organization of every session, in one atomic step. False when it was already gone.
   */
  delete(id: string): Promise<boolean>;
  /** The user's memberships with their organizations, oldest membership first. */
  listByUser(userId: string): Promise<Array<{ organization: OrganizationRecord; member: MemberRecord }>>;
  findMember(organizationId: string, userId: string): Promise<MemberRecord | null>;
  /** The members with their users (one read), oldest first. */
  listMembers(organizationId: string): Promise<Array<{ member: MemberRecord; user: UserRecord }>>;
  /**
   * Adds a member unless the user is one already (`"exists"`), the organization has `limit` members (`"limit"`,
   * counted in the same step, so N parallel adds at the limit minus one admit one), or either side is gone.
   */
  addMember(member: MemberRecord, limit: number | null): Promise<MemberAddResult>;
  /**
   * Sets the member's role. Moving the last `owner` to another role answers `"last-owner"` and changes nothing,
   * decided atomically with every other owner-changing write of the organization.
   */
  updateMemberRole(organizationId: string, userId: string, role: string): Promise<OwnerGuardedResult>;
  /** Removes the member, unless they are its last `owner` (`"last-owner"`, atomically as `updateMemberRole`). */
  removeMember(organizationId: string, userId: string): Promise<OwnerGuardedResult>;
  /** Inserts the invitation; false when the organization is gone. */
  createInvitation(invitation: InvitationRecord): Promise<boolean>;
  findInvitation(id: string): Promise<InvitationRecord | null>;
  /** The newest pending invitation of `email` to the organization, expired or not; null when none. */
  findPendingInvitation(organizationId: string, email: string): Promise<InvitationRecord | null>;
  /** Moves a pending invitation's expiry (a resend); null when it is no longer pending. */
  renewInvitation(id: string, expiresAt: Date): Promise<InvitationRecord | null>;
  /** The organization's invitations of every status, newest first. */
  listInvitations(organizationId: string): Promise<InvitationRecord[]>;
  /** The pending invitations of an email address, newest first. */
  listInvitationsByEmail(email: string): Promise<InvitationRecord[]>;
  /**
   * Accepts a pending, unexpired (`expiresAt > at`) invitation of `acceptance.email`: marks it accepted and adds
   * the member with its role in one atomic step, so it is single-use (of N parallel accepts exactly one adds a
   * member). `"exists"` (the user is a member already) and `"limit"` change nothing.
   */
  acceptInvitation(id: string, acceptance: InvitationAcceptance, limit: number | null): Promise<AcceptInvitationResult>;
  /** Moves a pending invitation to `status` (rejected or canceled); null when it was not pending. */
  settleInvitation(id: string, status: "rejected" | "canceled"): Promise<InvitationRecord | null>;
  /**
   * Sets the session's active organization, only while its user (`userId`) is a member of it (checked in the same
   * step); null clears it. False when the session is not the user's or the user is not a member.
   */
  setActive(sessionId: string, userId: string, organizationId: string | null): Promise<boolean>;
}

export interface JwkStore {
  list(): Promise<JwkRecord[]>;
  /** Inserts the key unless one with the same `generation` exists (then false: another instance won). */
  insert(record: JwkRecord): Promise<boolean>;
  /**
   * Marks the keys of a lower generation than `exceptId`'s retired at `at` (only those not yet retired). Never a
   * newer one: a slow creator's late call must not retire the key a faster one created after it.
   */
  retireOthers(exceptId: string, at: Date): Promise<void>;
  /** Deletes retired keys retired before `before`. */
  deleteRetiredBefore(before: Date): Promise<number>;
}

export interface AuditStore {
  append(record: AuditRecord): Promise<void>;
  /** Newest first; keyset pagination. */
  list(options: { userId: string | null; limit: number; cursor: string | null }): Promise<Page<AuditRecord>>;
  /** Deletes rows older than `before` (`at < before`), at most `limit` of them when given; returns how many went. */
  deleteBefore(before: Date, limit?: number): Promise<number>;
}

/**
 * Users' two-factor records (`twoFactor()`). Every write that guards a secret is a compare-and-set: of two racing
 * callers exactly one wins.
 */
export interface TwoFactorStore {
  find(userId: string): Promise<TwoFactorRecord | null>;
  /**
   * Saves a not-yet-enabled record (a setup): inserts it, or replaces the user's earlier unfinished setup. False
   * when the user's two-factor is enabled (nothing changes) or the user is gone.
   */
  savePending(record: TwoFactorRecord): Promise<boolean>;
  /**
   * Records `step` as the last accepted time step when the stored secret is still `secret` and the stored
   * `lastStep` is null or lower, and (with `enable`) switches two-factor on; with `enable` the record must still be
   * off, without it it must be on. False otherwise: a code of that step (or an earlier one) was accepted meanwhile,
   * or the record changed.
   */
  acceptStep(userId: string, secret: string, step: number, at: Date, options?: { enable?: boolean }): Promise<boolean>;
  /** Removes one recovery code hash of an enabled record; false when it is not there (used, replaced or never). */
  useRecoveryCode(userId: string, codeHash: string, at: Date): Promise<boolean>;
  /** Replaces every recovery code of an enabled record at once; false when there is none. */
  replaceRecoveryCodes(userId: string, codeHashes: string[], at: Date): Promise<boolean>;
  /** Voids trusted-device cookies issued before `at`; false when the user has no record. */
  distrustDevices(userId: string, at: Date): Promise<boolean>;
  /** Deletes the user's record; false when there was none. */
  delete(userId: string): Promise<boolean>;
}

/** The ports every store has: Latchkey's own flows (sign-up, sessions, codes, rate limits) need all of them. */
export interface CorePorts {
  users: UserStore;
  sessions: SessionStore;
  accounts: AccountStore;
  verifications: VerificationStore;
  counters: CounterStore;
}

/**
 * The ports only a plugin needs: `apiKeys()` needs `apiKeys`, `jwt()` needs `jwks` (unless it has a
 * `signerFactory`), `auditLog()` needs `audit`, `twoFactor()` needs `twoFactor`, `oauth()` needs `socialAccounts`, `passkeys()` needs `passkeys`, `organizations()` needs `organizations`. A
 * store may leave out those of features it does not support;
 * `createAuth` then refuses to install the plugin, naming the missing port.
 */
export interface PluginPorts {
  apiKeys: ApiKeyStore;
  jwks: JwkStore;
  audit: AuditStore;
  twoFactor: TwoFactorStore;
  socialAccounts: SocialAccountStore;
  passkeys: PasskeyStore;
  organizations: OrganizationStore;
}

/** `"apiKeys" | "jwks" | "audit" | "twoFactor" | "socialAccounts" | "passkeys" | "organizations"`: what a plugin lists in its `requires`. */
export type PluginPortName = keyof PluginPorts;

/** The ports of a store: what a transaction body sees. Plugin-owned ports are optional. */
export interface StorePorts extends CorePorts, Partial<PluginPorts> {}

/**
 * Everything Latchkey persists. Every method is domain-shaped; every store passes `@latchkey/store-conformance`
 * (the parts for plugin ports only when the store has them).
 *
 * @example
 * // A store without API keys, JWKS or audit rows: fine until a plugin that needs one of them is installed.
 * const store: Store = { kind: "my-store", users, sessions, accounts, verifications, counters, transaction, ping, close };
 */
export interface Store extends StorePorts {
  readonly kind: string;
  /**
   * Rows a sweep removes per statement on this store when the caller gives no `batchSize`; absent: 1000. A store
   * whose statements run on the process's own thread (a libSQL `file:` database) answers less, so that one batch
   * never holds the event loop for long.
   */
  readonly sweepBatchSize?: number;
  /**
   * Runs `body` against ports whose writes commit together or not at all: a database transaction (PostgreSQL,
   * SQLite/libSQL, MongoDB with a replica set) or the store's equivalent. A throw from `body` rolls back and is
   * rethrown. Keep bodies short: no password hashing, no email, no waiting on anything but the ports.
   */
  transaction<T>(body: (tx: StorePorts) => Promise<T>): Promise<T>;
  /** One cheap round trip to the database (health checks); throws when it does not answer. */
  ping(): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
  /**
   * A new carrier of cache invalidations between every instance over this database (`createAuth({ cache })`):
   * PostgreSQL `LISTEN/NOTIFY`, or in-process where one process owns the data (memory, a libSQL file). Absent
   * when the store has none (D1).
   */
  cacheCarrier?(): CacheCarrier;
}

/** Every port, plugin-owned ones included. */
export interface FullStorePorts extends CorePorts, PluginPorts {}

/**
 * A store with every port, so every plugin can be installed on it: what the bundled stores (memory, Drizzle,
 * MongoDB) return.
 *
 * @example
 * import type { FullStore } from "@latchkey/core";
 * const store: FullStore = memoryStore();
 * await store.apiKeys.findById(id); // no undefined check needed
 */
export interface FullStore extends Store {
  apiKeys: ApiKeyStore;
  jwks: JwkStore;
  audit: AuditStore;
  twoFactor: TwoFactorStore;
  socialAccounts: SocialAccountStore;
  passkeys: PasskeyStore;
  organizations: OrganizationStore;
  transaction<T>(body: (tx: FullStorePorts) => Promise<T>): Promise<T>;
}

export type { JsonObject, Permissions };
