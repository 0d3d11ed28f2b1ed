import type { AuthPlugin, InstalledPlugin, PluginId } from "../context/plugin.ts";
import { AuditLogService, type AuditEventPage, type ListAuditEventsInput } from "./audit-log.ts";
import { resolveAuditLogOptions, type ResolvedAuditLogOptions, type AuditLogOptions } from "./options.ts";

/** What `auditLog()` adds to `auth.api`. */
export interface AuditLogApi {
  /** Audit rows, newest first, keyset-paginated (needs `auditLog()`). */
  listAuditEvents(input?: ListAuditEventsInput): Promise<AuditEventPage>;
}

/** What `auditLog()` installs: `core.plugins.get(AUDIT_LOG_PLUGIN_ID)`. */
export type AuditLogInstalled = InstalledPlugin<AuditLogService, AuditLogApi, ResolvedAuditLogOptions>;

/**
 * The id `auditLog()` installs under, typed with what it installs.
 *
 * @example
 * const { service } = auth.core.plugins.get(AUDIT_LOG_PLUGIN_ID)!;
 */
export const AUDIT_LOG_PLUGIN_ID = "audit-log" as PluginId<"audit-log", AuditLogInstalled>;

/**
 * @example
 * const plugin: AuditLogPlugin = auditLog();
 */
export type AuditLogPlugin = AuthPlugin<"audit-log", AuditLogInstalled, "audit">;

/**
 * The audit-log plugin: every event except `OtpGenerated` becomes a row (no secrets) that survives account
 * deletion; `auth.api.listAuditEvents` reads them back. Needs a store with the `audit` port.
 *
 * @example
 * import { auditLog } from "@latchkey/core";
 * const auth = createAuth({ secret, database, baseUrl, plugins: [auditLog()] });
 * const { events, nextCursor } = await auth.api.listAuditEvents({ userId, limit: 50 });
 */
export function auditLog(options: AuditLogOptions = {}): AuditLogPlugin {
  const resolved = resolveAuditLogOptions(options);
  return {
    id: AUDIT_LOG_PLUGIN_ID,
    requires: ["audit"],
    init(ctx, { audit }) {
      const service = new AuditLogService(ctx, audit);
      const api: AuditLogApi = { listAuditEvents: (input) => service.list(input) };
      return { service, api, options: resolved };
    },
  };
}
