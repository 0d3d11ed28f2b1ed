import { AuthError, userBanned } from "../errors/errors.ts";
import { banInForce } from "../ports/ban.ts";
import { hashSecret, isTokenShaped, randomId, randomToken } from "../crypto/crypto.ts";
import type { ResolvedConfig } from "../kernel/config.ts";
import type { Clock, Random } from "../ports/clock.ts";
import type { SessionRecord, UserRecord } from "../ports/records.ts";
import type { Store } from "../ports/store.ts";
import { sharedOrigin, sharedPeekOf, type SharedPeek } from "../ports/shared-lookup.ts";
import { storedUserAgent, type RequestMeta } from "../kernel/request-meta.ts";
import { ANSWER_JSON, viewsOf, type CachedSession, type WithAnswerJson } from "./cached-session.ts";
import {
  ownUserView,
  toSessionView,
  toUserView,
  type CookieDescriptor,
  type SignInResult,
  type ValidatedSession,
} from "./views.ts";

// The views and cookies of sessions, and the shared views of cached ones, keep their import path here.
export { sessionAnswerJson, type CachedSession } from "./cached-session.ts";
export {
  companionCookie,
  ownUserView,
  toSessionView,
  toUserView,
  type CookieDescriptor,
  type Credentials,
  type DeviceCredential,
  type SessionView,
  type SignInResult,
  type UserView,
  type ValidatedSession,
} from "./views.ts";

/**
 * Sessions: a 32-byte random token goes to the client; only its SHA-256 is stored.
 *
 * @example
 * const { token } = await sessions.create(user, meta);
 * const current = await sessions.validate(token);
 */
export class SessionService {
  /** The lookup cache's synchronous read of its shared entries, when one stands in front of the store. */
  private readonly peek: SharedPeek | undefined;

  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    // Asked once: the port is fixed for the service's life, and reading it goes through the cache's proxies.
    this.peek = sharedPeekOf(store.sessions);
  }

  /** The session cookie; `rememberMe: false` makes it a browser-session cookie (no `Max-Age`). */
  cookie(token: string, expiresAt: Date | null, rememberMe = true): CookieDescriptor {
    const { cookies } = this.config;
    const maxAge = expiresAt ? Math.max(0, Math.floor((expiresAt.getTime() - this.clock.now()) / 1000)) : 0;
    return {
      name: cookies.name,
      value: expiresAt ? token : "",
      maxAge: expiresAt && !rememberMe ? null : maxAge,
      httpOnly: true,
      secure: cookies.secure,
      sameSite: cookies.sameSite,
      path: "/",
      domain: cookies.domain,
    };
  }

  /** The cookie that deletes the session cookie. */
  clearCookie(): CookieDescriptor {
    return this.cookie("", null);
  }

  /**
   * A new session with a new token (every sign-in: no fixation). `rememberMe: false` (sign-in only) gives a session
   * of at most `session.shortExpiresIn` that never slides, with a browser-session cookie.
   */
  async create(
    user: UserRecord,
    meta: RequestMeta,
    options: { rememberMe?: boolean; impersonatedBy?: string; expiresInMs?: number } = {},
  ): Promise<SignInResult> {
    const now = this.clock.now();
    const token = randomToken(this.random, 32);
    const rememberMe = options.rememberMe ?? true;
    const { expiresInMs, shortExpiresInMs } = this.config.session;
    const expiresAt = new Date(now + (options.expiresInMs ?? (rememberMe ? expiresInMs : shortExpiresInMs)));
    const record: SessionRecord = {
      id: randomId(this.random),
      userId: user.id,
      tokenHash: hashSecret(token),
      expiresAt,
      createdAt: new Date(now),
      updatedAt: new Date(now),
      ip: meta.ip,
      userAgent: storedUserAgent(meta.userAgent),
      rememberMe,
      impersonatedBy: options.impersonatedBy ?? null,
      activeOrganizationId: null,
    };
    // The user was deleted or banned by a concurrent request: a sign-in that loses that race is refused, never a
    // dead token (the store decides atomically; the answer names which).
    if (!(await this.store.sessions.create(record))) {
      const now = await this.store.users.findById(user.id);
      if (now && banInForce(now, record.createdAt)) throw userBanned(now);
      throw new AuthError("INVALID_CREDENTIALS", "The account no longer exists");
    }
    return {
      user: toUserView(user),
      session: toSessionView(record),
      credentials: { token, expiresAt: expiresAt.toISOString() },
      cookie: this.cookie(token, expiresAt, rememberMe),
    };
  }

  /**
   * What `validate` would answer, without a store call and without a promise, when the answer needs neither: null
   * for a token that cannot be one, the shared views of a live session the lookup cache holds that need not slide;
   * undefined otherwise (no cache, not cached, expired, due to slide): then call `validate`. The views are shared
   * and frozen: `ownCopy` makes the `ValidatedSession` a caller may keep.
   */
  validateCached(token: string): CachedSession | null | undefined {
    if (!isTokenShaped(token)) return null;
    if (this.peek === undefined) return undefined;
    const entry = this.peek(hashSecret(token)) as { session: SessionRecord; user: UserRecord } | undefined;
    if (entry === undefined) return undefined;
    const { session } = entry;
    const now = this.clock.now();
    // `validate` deletes an expired session (or a banned user's) and slides an old one: store calls, left to it.
    if (session.expiresAt.getTime() <= now || this.slides(session, now) || banInForce(entry.user, now))
      return undefined;
    return viewsOf(entry);
  }

  /** The `ValidatedSession` of a cached one (`validateCached`): the caller's own copies, as `validate` gives them. */
  ownCopy(cached: CachedSession): ValidatedSession {
    const validated: WithAnswerJson = {
      user: ownUserView(cached.user),
      session: { ...cached.session },
      userRecord: structuredClone(cached.lookup.user),
      sessionRecord: structuredClone(cached.lookup.session),
      refreshedCookie: null,
      [ANSWER_JSON]: cached.json,
    };
    return validated;
  }

  /** Whether a live session is due to slide forward now (`session.updateAge` passed; never a "remember me: no"). */
  private slides(session: SessionRecord, now: number): boolean {
    const { expiresInMs, updateAgeMs } = this.config.session;
    return session.rememberMe && session.expiresAt.getTime() - now < expiresInMs - updateAgeMs;
  }

  /** The live session of a token, or null. Expired sessions are deleted; old ones slide forward. */
  async validate(token: string): Promise<ValidatedSession | null> {
    if (!isTokenShaped(token)) return null;
    const found = await this.store.sessions.findByTokenHash(hashSecret(token));
    if (!found) return null;
    const now = this.clock.now();
    let { session } = found;
    // A banned user's session is no session: the ban deleted every one it found, and the store refuses new ones.
    if (session.expiresAt.getTime() <= now || banInForce(found.user, now)) {
      await this.store.sessions.delete(session.id);
      return null;
    }
    let refreshedCookie: CookieDescriptor | null = null;
    // A "remember me: no" session never slides: it ends `shortExpiresIn` after its creation at the latest.
    if (this.slides(session, now)) {
      const expiresAt = new Date(now + this.config.session.expiresInMs);
      await this.store.sessions.touch(session.id, expiresAt, new Date(now));
      session = { ...session, expiresAt, updatedAt: new Date(now) };
      refreshedCookie = this.cookie(token, expiresAt);
    }
    const entry = refreshedCookie === null ? sharedOrigin(found) : undefined;
    if (entry !== undefined) {
      // From the cache and not slid: the records are the entry's, so are the views. Each caller gets its own copies.
      const views = viewsOf(entry as { session: SessionRecord; user: UserRecord });
      const validated: WithAnswerJson = {
        user: ownUserView(views.user),
        session: { ...views.session },
        userRecord: found.user,
        sessionRecord: session,
        refreshedCookie,
        [ANSWER_JSON]: views.json,
      };
      return validated;
    }
    return {
      user: toUserView(found.user),
      session: toSessionView(session),
      userRecord: found.user,
      sessionRecord: session,
      refreshedCookie,
    };
  }

  /**
   * 403 `SESSION_NOT_FRESH` when the session was created more than `session.freshAge` ago (counted from its
   * creation, not from sliding renewals); signing in again gives a fresh one. No-op when `freshAge` is null.
   */
  assertFresh(session: SessionRecord): void {
    const { freshAgeMs } = this.config.session;
    if (freshAgeMs !== null && this.clock.now() - session.createdAt.getTime() > freshAgeMs)
      throw new AuthError("SESSION_NOT_FRESH", "Sign in again to do this: the session is too old");
  }

  /**
   * 401 `INVALID_CREDENTIALS` when `session` is gone (signed out, or revoked by a mailbox proof or a password change
   * since the request was authenticated) or has expired. Called last inside a write's transaction (`tx.sessions`),
   * it makes the write commit only if the session that asked for it still exists then.
   */
  async assertStillLive(session: SessionRecord): Promise<void> {
    const found = await this.store.sessions.findByTokenHash(session.tokenHash);
    if (!found || found.session.id !== session.id || found.session.expiresAt.getTime() <= this.clock.now())
      throw new AuthError("INVALID_CREDENTIALS", "Sign in first");
  }

  async revokeToken(token: string): Promise<SessionRecord | null> {
    const found = await this.store.sessions.findByTokenHash(hashSecret(token));
    if (!found) return null;
    // Only the request whose delete removed the row reports it: parallel sign-outs of one session revoke it once.
    if (!(await this.store.sessions.delete(found.session.id))) return null;
    return found.session;
  }

  revokeAll(userId: string, exceptSessionId?: string): Promise<number> {
    return this.store.sessions.deleteByUser(userId, exceptSessionId);
  }
}
