import { invalidField } from "../errors/errors.ts";
import { randomId } from "../crypto/crypto.ts";
import type { AuthContext } from "../context/context.ts";
import type { AuthEvent } from "../kernel/events.ts";
import { storedUserAgent } from "../kernel/request-meta.ts";
import type { AuditRecord, JsonObject } from "../ports/records.ts";
import type { AuditStore } from "../ports/store.ts";

/**
 * Field names never stored in an audit row, at any depth (compared case-insensitively).
 *
 * @example
 * import { AUDIT_REDACTED_FIELDS } from "@latchkey/core";
 * AUDIT_REDACTED_FIELDS.includes("password"); // true
 */
export const AUDIT_REDACTED_FIELDS: readonly string[] = ["plain", "token", "key", "password", "otp", "code"];
// Also dropped: compound names that announce a secret (`newPassword`, `sessionToken`, `clientSecret`).
const REDACTED_SUFFIXES = ["password", "token", "secret"];

function isSecretField(name: string): boolean {
  const n = name.toLowerCase();
  return AUDIT_REDACTED_FIELDS.includes(n) || REDACTED_SUFFIXES.some((suffix) => n.endsWith(suffix));
}

function toJsonValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === "object" && value !== null) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined && !isSecretField(k)) out[k] = toJsonValue(v);
    return out;
  }
  if (typeof value === "bigint") return value.toString();
  return typeof value === "function" || typeof value === "symbol" ? null : value;
}

/**
 * The audit row of an event: `type`, `userId`, `identifier`, `ip`, `userAgent` and `at` as columns, every
 * other field in `data` with secret-named fields removed (see `AUDIT_REDACTED_FIELDS`).
 *
 * @example
 * import { toAuditRecord } from "@latchkey/core";
 * const row = toAuditRecord({ type: "SignInFailed", identifier: "email:ada@example.com", reason: "invalid-credentials", at: new Date() }, "id1");
 */
export function toAuditRecord(event: AuthEvent, id: string): AuditRecord {
  const { type, at, ip, userAgent, ...rest } = event as AuthEvent & Record<string, unknown>;
  const { userId, identifier, ...data } = rest;
  // A refused verify's `code` is an error code (KEY_DISABLED, RATE_LIMITED ...), not a secret: it is kept as
  // `reason`, like SignInFailed's, so the blunt redaction of `code` fields stays without an exception list.
  if (event.type === "ApiKeyVerifyFailed") {
    delete data.code;
    data.reason = event.code;
  }
  return {
    id,
    type,
    at,
    userId: typeof userId === "string" ? userId : null,
    identifier: typeof identifier === "string" ? identifier : null,
    ip: ip ?? null,
    userAgent: storedUserAgent(userAgent),
    data: toJsonValue(data) as JsonObject,
  };
}

export interface ListAuditEventsInput {
  /** Only this user's rows; omitted or null lists every row. */
  userId?: string | null;
  /** 1..100, default 20. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string | null;
}

export interface AuditEventPage {
  /** Newest first. */
  events: AuditRecord[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/**
 * Stores every event but `OtpGenerated` and the `ApiKeyVerifyFailed` of an unknown or malformed key (no `keyId`)
 * through the `audit` store port, and lists the rows.
 * Built by `auditLog()`; reach it with `auth.core.plugins.get(AUDIT_LOG_PLUGIN_ID)`.
 *
 * @example
 * const page = await auth.core.plugins.get(AUDIT_LOG_PLUGIN_ID)!.service.list({ userId, limit: 10 });
 */
export class AuditLogService {
  constructor(
    private readonly ctx: AuthContext,
    private readonly audit: AuditStore,
  ) {
    // Emit awaits async listeners, so the row exists by the time the request that caused it answers; the listener
    // is required, so a row that cannot be written fails that request (docs/decisions/0009-audit-log.md).
    ctx.events.onAny((event) => this.record(event), { required: true });
  }

  async record(event: AuthEvent): Promise<void> {
    // OtpGenerated carries the plaintext code or token: never persisted.
    if (event.type === "OtpGenerated") return;
    // A verify refused for a malformed or unknown key (no key id) names no key and no user: anyone can send them,
    // so storing one row each would let anonymous traffic fill the log. The `latchkey.api_key.verifies` metric
    // counts them (result INVALID_API_KEY); listeners still receive the event.
    if (event.type === "ApiKeyVerifyFailed" && event.keyId === undefined) return;
    await this.audit.append(toAuditRecord(event, randomId(this.ctx.random)));
  }

  async list(input: ListAuditEventsInput = {}): Promise<AuditEventPage> {
    const limit = input.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw invalidField("limit", "limit must be an integer from 1 to 100");
    if (input.cursor != null && (typeof input.cursor !== "string" || input.cursor.length > 512))
      throw invalidField("cursor", "cursor is not valid");
    const page = await this.audit.list({ userId: input.userId ?? null, limit, cursor: input.cursor ?? null });
    return { events: page.items, nextCursor: page.nextCursor };
  }
}
