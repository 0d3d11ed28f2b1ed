import { AuthError } from "../errors/errors.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { SessionRecord } from "../ports/records.ts";
import { emit } from "../kernel/emit.ts";

/** One row of a user's "devices" list: never the token or its hash. */
export interface SessionListItem {
  id: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  ip: string | null;
  userAgent: string | null;
  /** True for the session that made the request. */
  current: boolean;
}

/** Why sessions were revoked (the `reason` of `SessionRevoked`). */
export type SessionRevocationReason =
  | "revoke-session"
  | "revoke-other-sessions"
  | "revoke-sessions"
  | "admin-revoke-sessions";

/**
 * The sessions a user can see and end: list them, revoke one, every other one, or all. Each revoked session is
 * one `SessionRevoked` event (with its id and `count: 1`), emitted only by the caller whose delete removed it,
 * so concurrent revocations of the same session emit once.
 *
 * @example
 * const { sessions } = await management.list(user.id, current.session.id);
 * await management.revoke(user.id, sessions[1].id, meta);
 */
export class SessionManagementService {
  constructor(private readonly ctx: AuthContext) {}

  /** The user's live sessions, newest first; `current` marks `currentSessionId` (null: none is current). */
  async list(userId: string, currentSessionId: string | null): Promise<{ sessions: SessionListItem[] }> {
    const now = this.ctx.clock.now();
    const rows = await this.ctx.store.sessions.listByUser(userId);
    return {
      sessions: rows
        .filter((s) => s.expiresAt.getTime() > now)
        .map((s) => ({
          id: s.id,
          createdAt: s.createdAt.toISOString(),
          updatedAt: s.updatedAt.toISOString(),
          expiresAt: s.expiresAt.toISOString(),
          ip: s.ip,
          userAgent: s.userAgent,
          current: s.id === currentSessionId,
        })),
    };
  }

  /**
   * Revokes one live session of the user. Another user's session, an expired one and an unknown id are the same
   * 404 `SESSION_NOT_FOUND`, so ids cannot be probed.
   */
  async revoke(userId: string, sessionId: string, meta: RequestMeta): Promise<{ success: true }> {
    const now = this.ctx.clock.now();
    const target = (await this.ctx.store.sessions.listByUser(userId)).find((s) => s.id === sessionId);
    if (!target || target.expiresAt.getTime() <= now || !(await this.ctx.store.sessions.delete(target.id)))
      throw new AuthError("SESSION_NOT_FOUND", "No such session");
    await this.emit(target, "revoke-session", meta);
    return { success: true };
  }

  /** Revokes every session of the user except `keepSessionId` (none kept when null); counts the live ones. */
  async revokeAll(
    userId: string,
    keepSessionId: string | null,
    reason: SessionRevocationReason,
    meta: RequestMeta,
  ): Promise<{ revoked: number }> {
    const now = this.ctx.clock.now();
    let revoked = 0;
    for (const s of await this.ctx.store.sessions.listByUser(userId)) {
      if (s.id === keepSessionId) continue;
      // Expired rows go too, silently: they were no longer sessions anyone could use.
      if (!(await this.ctx.store.sessions.delete(s.id)) || s.expiresAt.getTime() <= now) continue;
      revoked++;
      await this.emit(s, reason, meta);
    }
    // Signing out everywhere (or everywhere else) also ends every trusted device's skip of the second step.
    await this.ctx.signInGate?.forgetDevices(userId, new Date(now));
    return { revoked };
  }

  private emit(session: SessionRecord, reason: SessionRevocationReason, meta: RequestMeta): Promise<void> {
    const revocation = { userId: session.userId, sessionId: session.id, reason, count: 1 };
    return emit(this.ctx, "SessionRevoked", revocation, meta);
  }
}
