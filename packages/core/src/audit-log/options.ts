import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { rejectUnknownOptions, type OptionShape } from "../config/closed-options.ts";

/** Options of `auditLog()`. */
export interface AuditLogOptions {
  /**
   * How long rows are kept: the sweep (`auth.api.sweep()`, `latchkey sweep`) deletes older ones. Default `"90d"`;
   * `false` keeps every row for good.
   */
  retention?: Duration | false;
}

/** `auditLog()`'s options after validation. */
export interface ResolvedAuditLogOptions {
  /** How long the sweep keeps a row, in milliseconds; null keeps rows for good. */
  retentionMs: number | null;
}

/** Every key `auditLog({...})` accepts. A new option is one line here. */
export const AUDIT_LOG_OPTION_SHAPE: OptionShape = { retention: true };

/**
 * Validates `auditLog(options)`: an AuthConfigError names a bad or unknown option.
 *
 * @example
 * resolveAuditLogOptions({ retention: "30d" }); // { retentionMs: 2592000000 }
 */
export function resolveAuditLogOptions(options: AuditLogOptions = {}): ResolvedAuditLogOptions {
  if (options === null || typeof options !== "object")
    throw new AuthConfigError("auditLog", "options must be an object");
  rejectUnknownOptions(options, AUDIT_LOG_OPTION_SHAPE, "auditLog");
  const retention = options.retention ?? "90d";
  return { retentionMs: retention === false ? null : parseDuration(retention, "auditLog.retention") };
}
