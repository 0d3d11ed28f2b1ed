import type { AuthContext } from "../context/context.ts";
import { emit } from "../kernel/emit.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";

/**
 * Ends every impersonation `adminId` started: the authority it came from is gone or may be (the admin was demoted,
 * banned or removed, or their server-written role changed). Each ended session is deleted on every instance (the
 * lookup cache hears each id) and audited as `ImpersonationStopped`. Returns how many ended.
 *
 * @example
 * await endImpersonationsBy(ctx, demoted.id, meta);
 */
export async function endImpersonationsBy(ctx: AuthContext, adminId: string, meta: RequestMeta): Promise<number> {
  const gone = await ctx.store.sessions.deleteImpersonatedBy(adminId);
  for (const session of gone)
    await emit(ctx, "ImpersonationStopped", { userId: session.userId, actorId: adminId, sessionId: session.id }, meta);
  return gone.length;
}
