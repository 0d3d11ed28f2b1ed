import { parseDuration, type Duration } from "../config/duration.ts";
import { shapeOf, applySchema, defaulted, type InputOf } from "../config/schema.ts";

/** The one definition of `auditLog({...})`'s options: type, default, check, docs row (docs/options.md). */
export const AUDIT_LOG_SCHEMA = {
  /**
   * how long rows are kept: the sweep (`auth.api.sweep()`, `latchkey sweep --audit-retention`) deletes older ones;
   * `false` keeps every row for good
   */
  retention: defaulted<Duration | false>("90d", {
    check: (v, field) => (v === false ? undefined : void parseDuration(v, field)),
  }),
};

/** Options of `auditLog()`. */
export type AuditLogOptions = InputOf<typeof AUDIT_LOG_SCHEMA>;

/** `auditLog()`'s options after validation. */
export interface ResolvedAuditLogOptions {
  /** How long the sweep keeps a row, in milliseconds; null keeps rows for good. */
  retentionMs: number | null;
}

/** Every key `auditLog({...})` accepts (from `AUDIT_LOG_SCHEMA`). */
export const AUDIT_LOG_OPTION_SHAPE = shapeOf(AUDIT_LOG_SCHEMA);

/**
 * Validates `auditLog(options)`: an AuthConfigError names a bad or unknown option.
 *
 * @example
 * resolveAuditLogOptions({ retention: "30d" }); // { retentionMs: 2592000000 }
 */
export function resolveAuditLogOptions(options: AuditLogOptions = {}): ResolvedAuditLogOptions {
  const { retention } = applySchema(AUDIT_LOG_SCHEMA, options, "auditLog");
  return { retentionMs: retention === false ? null : parseDuration(retention, "auditLog.retention") };
}
