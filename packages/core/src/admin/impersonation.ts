// Impersonation: an admin's session as another user, the cookie that keeps the admin's own session meanwhile,
// and the way back.
import { AuthError } from "../errors/errors.ts";
import { emit } from "../kernel/emit.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { SessionRecord, UserRecord } from "../ports/records.ts";
import {
  companionCookie,
  type CookieDescriptor,
  type SessionView,
  type SignInResult,
  type UserView,
} from "../session/session.ts";
import { banInForce } from "../ports/ban.ts";
import { findUser, isAdminUser } from "./authority.ts";
import type { ResolvedAdminOptions } from "./options.ts";

/**
 * Starts a session as the user: `impersonatedBy` the admin, lasting `impersonationSessionDuration` (never sliding),
 * unable to change the user's password, second factor, passkeys or account. Never of another admin, never from
 * an impersonation session (403 `IMPERSONATION_NOT_ALLOWED`); a banned user has none (403 `USER_BANNED`).
 * Emits `ImpersonationStarted`.
 */
export async function impersonateUser(
  ctx: AuthContext,
  options: ResolvedAdminOptions,
  actor: UserRecord,
  actorSession: SessionRecord,
  userId: string,
  meta: RequestMeta,
): Promise<SignInResult> {
  if (actorSession.impersonatedBy !== null)
    throw new AuthError("IMPERSONATION_NOT_ALLOWED", "Stop impersonating before impersonating someone else");
  const user = await findUser(ctx, userId);
  if (user.id === actor.id || isAdminUser(options, user))
    throw new AuthError("IMPERSONATION_NOT_ALLOWED", "An admin cannot be impersonated");
  const result = await ctx.sessions.create(user, meta, {
    rememberMe: false,
    impersonatedBy: actor.id,
    expiresInMs: options.impersonationSessionMs,
  });
  // Written first, checked second: a demotion, ban or removal of the admin that raced this either sees the new
  // session (and ends it) or is seen here (and the session is taken back).
  const still = await ctx.store.users.findById(actor.id);
  if (!still || !isAdminUser(options, still) || banInForce(still, ctx.clock.now())) {
    await ctx.store.sessions.delete(result.session.id);
    throw new AuthError("INSUFFICIENT_PERMISSIONS", "Only an admin may do this");
  }
  await emit(ctx, "ImpersonationStarted", { userId: user.id, actorId: actor.id, sessionId: result.session.id }, meta);
  return result;
}

/**
 * The cookie that keeps the admin's own session token while they impersonate (`<prefix>.admin_session`, beside the
 * session cookie), so `/admin/stop-impersonating` can give it back; `null` clears it.
 */
export function adminSessionCookie(
  ctx: AuthContext,
  options: ResolvedAdminOptions,
  token: string | null,
): CookieDescriptor {
  const name = ctx.config.cookies.name.replace(/session$/, "admin_session");
  const seconds = Math.floor(options.impersonationSessionMs / 1000);
  return companionCookie(ctx.config, name, token ?? "", token === null ? 0 : seconds);
}

/**
 * The admin's own session back, from the token the admin-session cookie kept: only a live session of `actorId`
 * that is not itself an impersonation; null otherwise (the admin signs in again).
 */
export async function restoreAdmin(
  ctx: AuthContext,
  token: string | null,
  actorId: string,
): Promise<{ user: UserView; session: SessionView; cookie: CookieDescriptor } | null> {
  if (token === null || token === "") return null;
  const found = await ctx.sessions.validate(token);
  if (!found || found.userRecord.id !== actorId || found.sessionRecord.impersonatedBy !== null) return null;
  const { sessionRecord } = found;
  const cookie = ctx.sessions.cookie(token, sessionRecord.expiresAt, sessionRecord.rememberMe);
  return { user: found.user, session: found.session, cookie };
}

/** Ends an impersonation session (deleted on every instance). 400 for a session that is not one. */
export async function stopImpersonating(
  ctx: AuthContext,
  session: SessionRecord,
  meta: RequestMeta,
): Promise<{ actorId: string }> {
  const actorId = session.impersonatedBy;
  if (actorId === null) throw new AuthError("INVALID_REQUEST", "This session is not an impersonation");
  if (await ctx.store.sessions.delete(session.id))
    await emit(ctx, "ImpersonationStopped", { userId: session.userId, actorId, sessionId: session.id }, meta);
  return { actorId };
}
