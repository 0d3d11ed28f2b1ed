import type { ApiKeyRecord, JsonObject, Permissions } from "../ports/records.ts";

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
  metadata: JsonObject;
  permissions: Permissions;
  /** Uses left; null = unlimited. */
  remaining: number | null;
  /** Per-key rate limit: at most `rateLimitMax` verifies per `rateLimitWindowMs`; null = none. */
  rateLimitMax: number | null;
  rateLimitWindowMs: number | null;
  /** Last counted use. Only keys with a quota or a rate limit record it (unlimited keys verify without a write). */
  lastUsedAt: string | null;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
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
    metadata: k.metadata,
    permissions: k.permissions,
    remaining: k.remaining,
    rateLimitMax: k.rateLimitMax,
    rateLimitWindowMs: k.rateLimitWindowMs,
    lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
    expiresAt: k.expiresAt ? k.expiresAt.toISOString() : null,
    createdAt: k.createdAt.toISOString(),
    updatedAt: k.updatedAt.toISOString(),
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
   * Only on RATE_LIMITED and USAGE_EXCEEDED: milliseconds until the key admits a use again. `null` for
   * USAGE_EXCEEDED: quotas do not refill by themselves (trusted code raises `remaining`).
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
export type ApiKeyVerifyResult = { valid: true; apiKey: ApiKeyView } | { valid: false; error: ApiKeyVerifyError };

export const VERIFY_MESSAGES: Record<ApiKeyVerifyErrorCode, string> = {
  INVALID_API_KEY: "The API key is invalid",
  KEY_DISABLED: "The API key is disabled",
  KEY_EXPIRED: "The API key has expired",
  USAGE_EXCEEDED: "The API key has no uses left",
  RATE_LIMITED: "The API key is over its rate limit; try again later",
  INSUFFICIENT_PERMISSIONS: "The API key lacks the required permissions",
};
