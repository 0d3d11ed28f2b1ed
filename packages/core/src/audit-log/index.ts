export { auditLog, AuditLogService, toAuditRecord, AUDIT_REDACTED_FIELDS } from "./audit-log.ts";
export type { ListAuditEventsInput, AuditEventPage } from "./audit-log.ts";
