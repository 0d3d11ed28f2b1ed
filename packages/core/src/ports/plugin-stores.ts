/**
 * The ports of the smaller plugins: linked social accounts (`oauth()`), passkeys (`passkeys()`), signing keys
 * (`jwt()`), the audit log (`auditLog()`) and two-factor records (`twoFactor()`).
 */
import type {
  AccountRecord,
  AuditRecord,
  JwkRecord,
  Page,
  PasskeyRecord,
  TwoFactorRecord,
  UserRecord,
} from "./records.ts";

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
