import { hashSecret } from "../crypto/crypto.ts";
import { toUserView, type UserView } from "../session/session.ts";
import type { AuthContext } from "../auth/context.ts";
import type { RequestMeta } from "../auth/request-meta.ts";
import type { ApiKeyRecord } from "../ports/records.ts";
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
export type ApiKeyAuthentication = { valid: true; apiKey: ApiKeyView; user: UserView } | Refused;

async function refuse(
  ctx: AuthContext,
  keyId: string | null,
  code: ApiKeyVerifyErrorCode,
  meta: RequestMeta,
  tryAgainIn?: number | null,
): Promise<Refused> {
  await ctx.events.emit("ApiKeyVerifyFailed", {
    ...(keyId ? { keyId } : {}),
    code,
    at: new Date(ctx.clock.now()),
    ip: meta.ip,
    userAgent: meta.userAgent,
  });
  // A per-key limit says when it lifts, like the per-IP one (`tryAgainIn` and Retry-After carry the exact time).
  const message =
    code === "RATE_LIMITED" && typeof tryAgainIn === "number"
      ? `The API key is over its rate limit; try again in ${retryAfterText(Math.max(1, Math.ceil(tryAgainIn / 1000)))}`
      : VERIFY_MESSAGES[code];
  return { valid: false, error: tryAgainIn === undefined ? { code, message } : { code, message, tryAgainIn } };
}

/**
 * The hot path: one indexed read by hash; then, only for keys with a quota or a per-key rate limit, one
 * atomic conditional write (`consumeUse`) that consumes a use. Unlimited keys are checked in memory and
 * never written. Permissions are checked before the write so a refused check does not burn quota.
 *
 * @example
 * const result = await verifyApiKey(ctx, store.apiKeys, { key, permissions: { files: ["read"] } }, SERVER_CALL);
 */
async function verifyApiKey(
  ctx: AuthContext,
  keys: ApiKeyStore,
  input: VerifyApiKeyInput,
  meta: RequestMeta,
): Promise<ApiKeyVerifyResult> {
  const key = input?.key;
  if (!isWellFormedApiKey(key)) return refuse(ctx, null, "INVALID_API_KEY", meta);
  const row = await keys.findByHash(hashSecret(key));
  if (!row) return refuse(ctx, null, "INVALID_API_KEY", meta);
  const now = ctx.clock.now();
  if (!row.enabled) return refuse(ctx, row.id, "KEY_DISABLED", meta);
  if (row.expiresAt !== null && row.expiresAt.getTime() <= now) return refuse(ctx, row.id, "KEY_EXPIRED", meta);
  if (input.permissions && !hasPermissions(row.permissions, checkPermissions(input.permissions)))
    return refuse(ctx, row.id, "INSUFFICIENT_PERMISSIONS", meta);
  if (!isMetered(row)) return { valid: true, apiKey: toApiKeyView(row) };
  const used = await keys.consumeUse(row.id, new Date(now));
  if (used.ok) return { valid: true, apiKey: toApiKeyView(used.key) };
  switch (used.reason) {
    case "NOT_FOUND":
      return refuse(ctx, row.id, "INVALID_API_KEY", meta);
    case "USAGE_EXCEEDED":
      return refuse(ctx, row.id, "USAGE_EXCEEDED", meta, null);
    case "RATE_LIMITED": {
      const k = used.key ?? row;
      const resetAt = (k.windowStart?.getTime() ?? now) + (k.rateLimitWindowMs ?? 0);
      return refuse(ctx, row.id, "RATE_LIMITED", meta, Math.max(1, resetAt - now));
    }
    default:
      // Disabled or expired between the read and the write.
      return refuse(ctx, row.id, used.reason, meta);
  }
}

/**
 * `verifyApiKey` plus the key's owner, for `requireApiKey` host routes.
 *
 * @example
 * const auth = await authenticateApiKey(ctx, store.apiKeys, { key }, meta);
 * if (auth.valid) console.log(auth.user.email);
 */
export async function authenticateApiKey(
  ctx: AuthContext,
  keys: ApiKeyStore,
  input: VerifyApiKeyInput,
  meta: RequestMeta,
): Promise<ApiKeyAuthentication> {
  const result = await verifyApiKey(ctx, keys, input, meta);
  if (!result.valid) return result;
  const user = await ctx.store.users.findById(result.apiKey.userId);
  // The owner was deleted between the two reads (its keys go with it): the key no longer exists.
  if (!user) return refuse(ctx, result.apiKey.id, "INVALID_API_KEY", meta);
  return { valid: true, apiKey: result.apiKey, user: toUserView(user) };
}
