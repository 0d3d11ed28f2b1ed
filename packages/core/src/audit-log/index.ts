export { auditLog, AuditLogService, toAuditRecord, AUDIT_REDACTED_FIELDS } from "./audit-log.ts";
export type { ListAuditEventsInput, AuditEventPage, AuditLogApi } from "./audit-log.ts";
