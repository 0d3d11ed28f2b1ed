import type { ApiKeyRecord, JsonObject, Permissions } from "../ports/records.ts";
import { isoTime } from "../session/iso-time.ts";

/**
 * An API key as returned to callers: never the key itself nor its hash. Dates are ISO strings.
 *
 * @example
 * const { apiKeys } = await auth.api.listApiKeys({ userId });
 * apiKeys.map((k: ApiKeyView) => `${k.start}... ${k.name}`);
 */
export interface ApiKeyView {
  id: string;
  userId: string;
  name: string | null;
  prefix: string;
  /** The first 8 characters of the key (prefix included), to tell keys apart in a list. */
  start: string;
  enabled: boolean;
  /** Disabled by trusted code (`auth.api.updateApiKey`): the owner cannot enable it (403 KEY_LOCKED). */
  locked: boolean;
  /** The owner's data (writable over HTTP). */
  metadata: JsonObject;
  /** Data only trusted code writes; read-only to the owner. */
  serverMetadata: JsonObject;
  permissions: Permissions;
  /** Uses left; null = unlimited. */
  remaining: number | null;
  /** Uses `remaining` is set back to every `refillInterval`; null = no refill. */
  refillAmount: number | null;
  /** Milliseconds between refills (like `rateLimitWindowMs`); null = no refill. */
  refillInterval: number | null;
  /** When `remaining` was last refilled (the creation time until the first refill); null without a refill. */
  lastRefillAt: string | null;
  /** When the key's value was last replaced by a reroll; null when never. */
  rerolledAt: string | null;
  /** Per-key rate limit: at most `rateLimitMax` verifies per `rateLimitWindowMs`; null = none. */
  rateLimitMax: number | null;
  rateLimitWindowMs: number | null;
  /**
   * Last successful use. Keys with a quota or a rate limit record every use; the others at most once per
   * `apiKeys({ lastUsedResolution })` (default one minute), so it may lag by that much.
   */
  lastUsedAt: string | null;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
  /**
   * The organization the key acts for (`organizations()`); null for a user's own key. A verify answers its
   * `permissions` capped by the creator's current role there (none once they left it).
   */
  organizationId: string | null;
}

/**
 * The caller-facing view of a stored key (drops `keyHash` and the window counters).
 *
 * @example
 * import { toApiKeyView } from "@latchkey/core";
 * const view = toApiKeyView(await store.apiKeys.findById(id));
 */
export function toApiKeyView(k: ApiKeyRecord): ApiKeyView {
  return {
    id: k.id,
    userId: k.userId,
    name: k.name,
    prefix: k.prefix,
    start: k.start,
    enabled: k.enabled,
    locked: k.locked,
    metadata: k.metadata,
    serverMetadata: k.serverMetadata,
    permissions: k.permissions,
    remaining: k.remaining,
    refillAmount: k.refillAmount,
    refillInterval: k.refillIntervalMs,
    lastRefillAt: k.refillAmount !== null && k.lastRefillAt ? isoTime(k.lastRefillAt) : null,
    rerolledAt: k.rerolledAt ? isoTime(k.rerolledAt) : null,
    rateLimitMax: k.rateLimitMax,
    rateLimitWindowMs: k.rateLimitWindowMs,
    lastUsedAt: k.lastUsedAt ? isoTime(k.lastUsedAt) : null,
    expiresAt: k.expiresAt ? isoTime(k.expiresAt) : null,
    createdAt: isoTime(k.createdAt),
    updatedAt: isoTime(k.updatedAt),
    organizationId: k.organizationId ?? null,
  };
}

/** Why a verify failed. The HTTP status of each (for `requireApiKey`) lives in hono-adapter's status table. */
export type ApiKeyVerifyErrorCode =
  | "INVALID_API_KEY"
  | "KEY_DISABLED"
  | "KEY_EXPIRED"
  | "USAGE_EXCEEDED"
  | "RATE_LIMITED"
  | "INSUFFICIENT_PERMISSIONS";

export interface ApiKeyVerifyError {
  code: ApiKeyVerifyErrorCode;
  message: string;
  /**
   * Only on RATE_LIMITED and USAGE_EXCEEDED: milliseconds until the key admits a use again. On USAGE_EXCEEDED,
   * the time until the next refill, or `null` for a key without a refill (trusted code raises `remaining`).
   */
  tryAgainIn?: number | null;
}

/**
 * The answer of a verify: a result, never a thrown error, so a service can branch on it cheaply.
 *
 * @example
 * const result = await auth.api.verifyApiKey({ key, permissions: { files: ["read"] } });
 * if (!result.valid) console.log(result.error.code, result.error.tryAgainIn);
 */
export type ApiKeyVerifyResult =
  | {
      valid: true;
      apiKey: ApiKeyView;
      /**
       * True when the value verified is one a reroll replaced, still inside its grace period: warn the caller to
       * switch to the new value before it stops working.
       */
      deprecated: boolean;
    }
  | { valid: false; error: ApiKeyVerifyError };

/**
 * The answer of `POST /api-key/verify`: a valid key's view without `serverMetadata`, which only trusted code
 * (`auth.api.verifyApiKey`, `requireApiKey`) sees.
 *
 * @example
 * const result: CallerApiKeyVerifyResult = await service.verifyForCaller({ key }, meta);
 */
export type CallerApiKeyVerifyResult =
  | { valid: true; apiKey: Omit<ApiKeyView, "serverMetadata">; deprecated: boolean }
  | { valid: false; error: ApiKeyVerifyError };

export const VERIFY_MESSAGES: Record<ApiKeyVerifyErrorCode, string> = {
  INVALID_API_KEY: "The API key is invalid",
  KEY_DISABLED: "The API key is disabled",
  KEY_EXPIRED: "The API key has expired",
  USAGE_EXCEEDED: "The API key has no uses left",
  RATE_LIMITED: "The API key is over its rate limit; try again later",
  INSUFFICIENT_PERMISSIONS: "The API key lacks the required permissions",
};
