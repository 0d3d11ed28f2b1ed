import { AuthError, userBanned } from "../errors/errors.ts";
import { banInForce } from "../ports/ban.ts";
import { hashSecret, isTokenShaped, randomId, randomToken } from "../crypto/crypto.ts";
import type { ResolvedConfig } from "../kernel/config.ts";
import type { Clock, Random } from "../ports/clock.ts";
import type { SessionRecord, UserRecord } from "../ports/records.ts";
import type { Store } from "../ports/store.ts";
import { ownData, sharedOrigin, sharedPeekOf, type SharedPeek } from "../ports/shared-lookup.ts";
import { storedUserAgent, type RequestMeta } from "../kernel/request-meta.ts";
import { isoTime } from "./iso-time.ts";

/** The user as returned to callers. */
export interface UserView {
  id: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
  image: string | null;
  username: string | null;
  /** User-controlled (`PATCH /user` replaces it): never trust it for authorization. */
  metadata: Record<string, unknown>;
  /** Server-only (`auth.api.updateUser`): roles, plan and entitlements belong here. */
  appMetadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** The session as returned to callers (never the token or its hash). */
export interface SessionView {
  id: string;
  userId: string;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  ip: string | null;
  userAgent: string | null;
  /** The admin's user id, on a session started by impersonating this user (`admin()`); absent otherwise. */
  impersonatedBy?: string;
  /** The organization the session acts for (`organizations()`); absent when none. */
  activeOrganizationId?: string;
}

/** `{ token, expiresAt }`: the session token for `Authorization: Bearer` use. */
export interface Credentials {
  token: string;
  expiresAt: string;
}

/** A cookie to set (or clear, with `maxAge: 0`). Only hono-adapter turns it into a header. */
export interface CookieDescriptor {
  name: string;
  value: string;
  /** Seconds; null for a browser-session cookie (no `Max-Age`, no `Expires`: it ends with the browser). */
  maxAge: number | null;
  httpOnly: true;
  secure: boolean;
  sameSite: "Lax" | "Strict" | "None";
  path: "/";
  domain: string | null;
}

/**
 * A cookie that travels beside the session cookie (device, pending two-factor sign-in, trusted device): HttpOnly,
 * `Path=/`, and Secure, SameSite and Domain as the session cookie.
 *
 * @example
 * companionCookie(config, config.deviceCookies.name, token, 400 * 86_400);
 */
export function companionCookie(
  config: Pick<ResolvedConfig, "cookies">,
  name: string,
  value: string,
  maxAge: number,
): CookieDescriptor {
  const { cookies } = config;
  return {
    name,
    value,
    maxAge,
    httpOnly: true,
    secure: cookies.secure,
    sameSite: cookies.sameSite,
    path: "/",
    domain: cookies.domain,
  };
}

/** What a sign-in hands back besides the session: the (rotated) device token and its cookie. */
export interface DeviceCredential {
  /** The device's id (stable across rotations): `revoke({ userId, deviceId })` ends it. */
  deviceId: string;
  token: string;
  cookie: CookieDescriptor;
}

/** What a sign-in of any kind returns. */
export interface SignInResult {
  user: UserView;
  session: SessionView;
  credentials: Credentials;
  cookie: CookieDescriptor;
  /**
   * The device cookie of this browser for this account (issued, or rotated when the sign-in presented one); absent
   * with `deviceCookies.enabled: false` and on sign-ins that do not issue one. Bearer clients get its `token` as
   * `credentials.deviceToken`.
   */
  device?: DeviceCredential;
}

export interface ValidatedSession {
  user: UserView;
  session: SessionView;
  /** The stored records, for services that need more than the views. */
  userRecord: UserRecord;
  sessionRecord: SessionRecord;
  /** Set when the sliding refresh extended the session: the caller re-sends the cookie. */
  refreshedCookie: CookieDescriptor | null;
}

/**
 * A live session the lookup cache held, as `SessionService.validateCached` answers it: the views of its entry and
 * the JSON of `{ user, session }`, made once per cache entry and shared by every request that reads it. Nothing in
 * it may be changed: `ownCopy` gives a caller the `ValidatedSession` it may keep and change.
 */
export interface CachedSession {
  /** The user's view, shared: copy it (`ownCopy`) before handing it to anything that may change it. */
  readonly user: Readonly<UserView>;
  /** The session's view, shared likewise. */
  readonly session: Readonly<SessionView>;
  /** `JSON.stringify({ user, session })`: get-session's answer. */
  readonly json: string;
  /** The cache entry the views were made from. */
  readonly lookup: Readonly<{ session: SessionRecord; user: UserRecord }>;
}

// One WeakMap key per cache entry (few, long-lived); the answer's JSON rides on each request's result under a
// symbol (a weak key per request would cost every garbage collection an ephemeron to trace).
const viewsOfEntry = new WeakMap<object, CachedSession>();
const ANSWER_JSON = Symbol("latchkey.answerJson");
type WithAnswerJson = ValidatedSession & { [ANSWER_JSON]?: string };

/** The views of a cache entry (not slid: its own records), made on the first request that reads it. */
function viewsOf(entry: { session: SessionRecord; user: UserRecord }): CachedSession {
  let views = viewsOfEntry.get(entry);
  if (views === undefined) {
    // Frozen: shared by every request that reads the entry, they are never handed out to be changed.
    const user = Object.freeze(toUserView(entry.user));
    const session = Object.freeze(toSessionView(entry.session));
    views = Object.freeze({ user, session, json: JSON.stringify({ user, session }), lookup: entry });
    viewsOfEntry.set(entry, views);
  }
  return views;
}

/**
 * `JSON.stringify({ user, session })` of a session `validate` answered from a cached lookup, computed once per cache
 * entry (the records of an entry never change; a slide, an update or a revocation drops the entry), or undefined:
 * then the caller serializes the views itself. get-session answers with it.
 */
export function sessionAnswerJson(validated: ValidatedSession): string | undefined {
  return (validated as WithAnswerJson)[ANSWER_JSON];
}

export function toUserView(u: UserRecord): UserView {
  return {
    id: u.id,
    email: u.email,
    emailVerified: u.emailVerified,
    name: u.name,
    image: u.image,
    username: u.username,
    metadata: u.metadata,
    appMetadata: u.appMetadata,
    createdAt: isoTime(u.createdAt),
    updatedAt: isoTime(u.updatedAt),
  };
}

/** A caller's own copy of a shared user view: its `metadata` and `appMetadata` too (see `ownData`). */
export function ownUserView(u: Readonly<UserView>): UserView {
  return { ...u, metadata: ownData(u.metadata), appMetadata: ownData(u.appMetadata) };
}

export function toSessionView(s: SessionRecord): SessionView {
  return {
    id: s.id,
    userId: s.userId,
    expiresAt: isoTime(s.expiresAt),
    createdAt: isoTime(s.createdAt),
    updatedAt: isoTime(s.updatedAt),
    ip: s.ip,
    userAgent: s.userAgent,
    // Only on a session an admin started by impersonating its user (`admin()`).
    ...(s.impersonatedBy === null || s.impersonatedBy === undefined ? {} : { impersonatedBy: s.impersonatedBy }),
    ...(s.activeOrganizationId ? { activeOrganizationId: s.activeOrganizationId } : {}),
  };
}

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
