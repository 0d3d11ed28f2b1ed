import { banInForce } from "../ports/ban.ts";
import { hashSecret, constantTimeEqual } from "../crypto/crypto.ts";
import { ownUserView, toUserView, type UserView } from "../session/session.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { ApiKeyRecord, Permissions, UserRecord } from "../ports/records.ts";
import { capByRole } from "../kernel/role-table.ts";
import { ownData, sharedOrigin } from "../ports/shared-lookup.ts";
import type { ApiKeyStore } from "../ports/store.ts";
import { hasPermissions } from "./permissions.ts";
import { checkPermissions } from "./input.ts";
import { retryAfterText } from "../rate-limit/rate-limit.ts";
import {
  toApiKeyView,
  VERIFY_MESSAGES,
  type ApiKeyVerifyErrorCode,
  type ApiKeyVerifyResult,
  type ApiKeyView,
} from "./view.ts";
import type { VerifyApiKeyInput } from "./types.ts";
import type { ResolvedApiKeysOptions } from "./options.ts";
import { recordApiKeyUsage, type ApiKeyUsageOutcome } from "./usage.ts";
import { emit } from "../kernel/emit.ts";

/** Random part of every key: 40 base62 characters (about 238 bits). */
export const API_KEY_RANDOM_LENGTH = 40;
export const API_KEY_START_LENGTH = 8;
// Prefix (1..16 of A-Z a-z 0-9 _) + 40 base62. Checked before hashing so junk never reaches the store.
const KEY_SHAPE = /^[A-Za-z0-9_]{1,16}[A-Za-z0-9]{40}$/;
const MAX_KEY_LENGTH = 16 + API_KEY_RANDOM_LENGTH;

/**
 * True when `key` has the shape of a Latchkey API key (any prefix, so keys keep working after
 * `defaultPrefix` changes). Empty, oversized, non-ASCII and prefix-less input is false.
 *
 * @example
 * import { isWellFormedApiKey } from "@latchkey/core";
 * isWellFormedApiKey("lk_" + "a".repeat(40)); // true
 */
export function isWellFormedApiKey(key: unknown): key is string {
  // One check in two steps: the length bounds refuse a wrong-sized key in nanoseconds, where the pattern alone
  // backtracks for microseconds over a long run of key characters; then the pattern checks the characters.
  return (
    typeof key === "string" && key.length > API_KEY_RANDOM_LENGTH && key.length <= MAX_KEY_LENGTH && KEY_SHAPE.test(key)
  );
}

/** Only keys with a quota or a per-key rate limit need the atomic write on verify. */
function isMetered(k: ApiKeyRecord): boolean {
  return k.remaining !== null || (k.rateLimitMax !== null && k.rateLimitWindowMs !== null);
}

type Refused = Extract<ApiKeyVerifyResult, { valid: false }>;

/** A verify that also resolved the key's owner (what `requireApiKey` puts in `c.var`). */
export type ApiKeyAuthentication = { valid: true; apiKey: ApiKeyView; user: UserView; deprecated: boolean } | Refused;

/** What a verify needs besides the store: the resolved plugin options (usage counting, lastUsed resolution). */
export type VerifySettings = Pick<ResolvedApiKeysOptions, "usage" | "usageRetentionMs" | "lastUsedResolutionMs">;

/** Counts the outcome of a verify of a known key, when `apiKeys({ usage: true })`. */
async function countUsage(
  ctx: AuthContext,
  settings: VerifySettings,
  keyId: string | null,
  outcome: ApiKeyUsageOutcome,
): Promise<void> {
  if (!settings.usage || keyId === null) return;
  await recordApiKeyUsage(ctx.store.counters, keyId, outcome, ctx.clock.now(), settings.usageRetentionMs);
}

async function refuse(
  ctx: AuthContext,
  settings: VerifySettings,
  keyId: string | null,
  code: ApiKeyVerifyErrorCode,
  meta: RequestMeta,
  tryAgainIn?: number | null,
): Promise<Refused> {
  await countUsage(ctx, settings, keyId, code);
  await emit(ctx, "ApiKeyVerifyFailed", { ...(keyId ? { keyId } : {}), code }, meta);
  // A per-key limit says when it lifts, like the per-IP one (`tryAgainIn` and Retry-After carry the exact time).
  const message =
    code === "RATE_LIMITED" && typeof tryAgainIn === "number"
      ? `The API key is over its rate limit; try again in ${retryAfterText(Math.max(1, Math.ceil(tryAgainIn / 1000)))}`
      : VERIFY_MESSAGES[code];
  return { valid: false, error: tryAgainIn === undefined ? { code, message } : { code, message, tryAgainIn } };
}

/** Milliseconds until a used-up key refills, or null when it does not refill. */
function untilRefill(k: ApiKeyRecord, now: number): number | null {
  if (k.refillAmount === null || k.refillIntervalMs === null) return null;
  return Math.max(1, (k.lastRefillAt ?? k.createdAt).getTime() + k.refillIntervalMs - now);
}

/**
 * The hot path: one indexed read by hash (the current value, or a rerolled one inside its grace) that brings the
 * key's owner with it (`findByHashWithOwner`: a key whose owner is gone is not found); then, only for keys with a
 * quota or a per-key rate limit, one atomic conditional write (`consumeUse`) that consumes a use (and refills
 * first when the refill interval passed). Other keys are checked in memory and written at most once per
 * `lastUsedResolution` (their `lastUsedAt`). Permissions are checked before the write so a refused check does not
 * burn quota. With `usage`, one counter write records the outcome.
 *
 * @example
 * const auth = await authenticateApiKey(ctx, store.apiKeys, settings, { key, permissions: { files: ["read"] } }, meta);
 * if (auth.valid) console.log(auth.user.email);
 */
type KeyViews = { apiKey: ApiKeyView; user: UserView };

// One WeakMap key per cache entry (few, long-lived), never one per request.
const viewsOfEntry = new WeakMap<object, KeyViews>();

/**
 * The views of a key and its owner. From a cached lookup they are made once per cache entry (its records never
 * change in place: a change or a usage stamp replaces or drops it); each caller gets its own copies.
 */
function viewsOf(found: { key: ApiKeyRecord; user: UserRecord }): KeyViews {
  const entry = sharedOrigin(found);
  if (entry === undefined) return { apiKey: toApiKeyView(found.key), user: toUserView(found.user) };
  let views = viewsOfEntry.get(entry);
  if (views === undefined) {
    views = { apiKey: toApiKeyView(found.key), user: toUserView(found.user) };
    viewsOfEntry.set(entry, views);
  }
  const { apiKey } = views;
  const own = {
    ...apiKey,
    metadata: ownData(apiKey.metadata),
    serverMetadata: ownData(apiKey.serverMetadata),
    permissions: ownData(apiKey.permissions),
  };
  return { apiKey: own, user: ownUserView(views.user) };
}

/**
 * What an organization's key may do now (`organizationId` set): its permissions capped by its creator's current
 * role in the organization (`findMember`, one read); none once the creator is no member. Null when the key is gone:
 * a creator who is no member may mean the organization was deleted with its keys while a lookup cache still held
 * this one, so the key's row is read again (`findById` never comes from the cache).
 */
async function organizationPermissions(
  ctx: AuthContext,
  keys: ApiKeyStore,
  row: ApiKeyRecord & { organizationId: string },
): Promise<Permissions | null> {
  const member = (await ctx.store.organizations?.findMember(row.organizationId, row.userId)) ?? null;
  if (member === null && !(await keys.findById(row.id))) return null;
  const roles = ctx.organizationRoles;
  return roles === null ? {} : capByRole(roles, member?.role ?? null, row.permissions);
}

export async function authenticateApiKey(
  ctx: AuthContext,
  keys: ApiKeyStore,
  settings: VerifySettings,
  input: VerifyApiKeyInput,
  meta: RequestMeta,
): Promise<ApiKeyAuthentication> {
  const key = input?.key;
  if (!isWellFormedApiKey(key)) return refuse(ctx, settings, null, "INVALID_API_KEY", meta);
  const hash = hashSecret(key);
  const found = await keys.findByHashWithOwner(hash);
  if (!found) return refuse(ctx, settings, null, "INVALID_API_KEY", meta);
  const { key: row, user } = found;
  const now = ctx.clock.now();
  // Not the current value: the one a reroll replaced. It verifies only until its grace ends.
  const deprecated = !constantTimeEqual(row.keyHash, hash);
  if (deprecated && (row.previousKeyExpiresAt === null || row.previousKeyExpiresAt.getTime() <= now))
    return refuse(ctx, settings, null, "INVALID_API_KEY", meta);
  // A ban disables every key of the user (`admin()`); one made or re-enabled while it lasts stays refused too.
  if (!row.enabled || banInForce(user, now)) return refuse(ctx, settings, row.id, "KEY_DISABLED", meta);
  if (row.expiresAt !== null && row.expiresAt.getTime() <= now)
    return refuse(ctx, settings, row.id, "KEY_EXPIRED", meta);
  const wanted = input.permissions ? checkPermissions(input.permissions) : null;
  // An organization's key carries no more than its creator's role grants at this moment.
  let capped: Permissions | null = null;
  if (row.organizationId != null) {
    capped = await organizationPermissions(ctx, keys, { ...row, organizationId: row.organizationId });
    if (capped === null) return refuse(ctx, settings, null, "INVALID_API_KEY", meta);
  }
  if (wanted && !hasPermissions(capped ?? row.permissions, wanted))
    return refuse(ctx, settings, row.id, "INSUFFICIENT_PERMISSIONS", meta);
  if (!isMetered(row)) {
    const resolution = settings.lastUsedResolutionMs;
    let { apiKey: view, user: userView } = viewsOf(found);
    // The replaced value's own first characters: never those of the value that replaced it.
    if (deprecated) view = { ...view, start: key.slice(0, API_KEY_START_LENGTH) };
    // At most one write per key per resolution: the common verify stays a single read.
    if (row.lastUsedAt === null || row.lastUsedAt.getTime() + resolution <= now) {
      await keys.touchLastUsed(row.id, new Date(now), resolution);
      view = { ...view, lastUsedAt: new Date(now).toISOString() };
    }
    await countUsage(ctx, settings, row.id, "valid");
    if (capped !== null) view = { ...view, permissions: capped };
    return { valid: true, apiKey: view, user: userView, deprecated };
  }
  const used = await keys.consumeUse(row.id, new Date(now));
  if (used.ok) {
    await countUsage(ctx, settings, row.id, "valid");
    const view = toApiKeyView(used.key);
    if (deprecated) view.start = key.slice(0, API_KEY_START_LENGTH);
    if (capped !== null) view.permissions = capped;
    return { valid: true, apiKey: view, user: toUserView(user), deprecated };
  }
  switch (used.reason) {
    case "NOT_FOUND":
      // Deleted between the read and the write (its owner's deletion takes it too).
      return refuse(ctx, settings, row.id, "INVALID_API_KEY", meta);
    case "USAGE_EXCEEDED":
      return refuse(ctx, settings, row.id, "USAGE_EXCEEDED", meta, untilRefill(used.key ?? row, now));
    case "RATE_LIMITED": {
      const k = used.key ?? row;
      const resetAt = (k.windowStart?.getTime() ?? now) + (k.rateLimitWindowMs ?? 0);
      return refuse(ctx, settings, row.id, "RATE_LIMITED", meta, Math.max(1, resetAt - now));
    }
    default:
      // Disabled or expired between the read and the write.
      return refuse(ctx, settings, row.id, used.reason, meta);
  }
}
