export {
  auditLog,
  AuditLogService,
  toAuditRecord,
  AUDIT_REDACTED_FIELDS,
  AUDIT_LOG_OPTION_SHAPE,
} from "./audit-log.ts";
export type { ListAuditEventsInput, AuditEventPage, AuditLogApi, AuditLogOptions } from "./audit-log.ts";
