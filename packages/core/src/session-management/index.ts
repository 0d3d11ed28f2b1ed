export { SessionManagementService } from "./session-management.ts";
export type { SessionListItem, SessionRevocationReason } from "./session-management.ts";
