export { auditLog, AUDIT_LOG_PLUGIN_ID } from "./plugin.ts";
export type { AuditLogApi, AuditLogInstalled, AuditLogPlugin } from "./plugin.ts";
export type { AuditLogOptions } from "./options.ts";
export { AuditLogService, toAuditRecord, AUDIT_REDACTED_FIELDS } from "./audit-log.ts";
export type { ListAuditEventsInput, AuditEventPage } from "./audit-log.ts";
export { AUDIT_LOG_SCHEMA, AUDIT_LOG_OPTION_SHAPE, resolveAuditLogOptions } from "./options.ts";
export type { ResolvedAuditLogOptions } from "./options.ts";
