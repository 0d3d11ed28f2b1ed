import { AuthConfigError } from "../errors/errors.ts";
import { rejectUnknownOptions, type OptionShape } from "../config/closed-options.ts";

/** `auditLog()` has no options yet; the object form keeps the call shape of the other plugins. */
export type AuditLogOptions = Record<string, never>;

/** `auditLog()`'s options after validation: none yet. */
export type ResolvedAuditLogOptions = Record<string, never>;

/** Every key `auditLog({...})` accepts: none yet. A new option is one line here. */
export const AUDIT_LOG_OPTION_SHAPE: OptionShape = {};

/**
 * Validates `auditLog(options)`: an AuthConfigError names a bad or unknown option.
 *
 * @example
 * resolveAuditLogOptions({}); // {}
 */
export function resolveAuditLogOptions(options: AuditLogOptions = {}): ResolvedAuditLogOptions {
  if (options === null || typeof options !== "object")
    throw new AuthConfigError("auditLog", "options must be an object");
  rejectUnknownOptions(options, AUDIT_LOG_OPTION_SHAPE, "auditLog");
  return {};
}
