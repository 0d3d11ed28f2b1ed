/** The API key port (`apiKeys()`): `ApiKeyStore` and what its methods take and answer. */
import type { ApiKeyRecord, Page, UserRecord } from "./records.ts";

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
