import type { ResolvedConfig } from "../kernel/config.ts";
import type { SessionRecord, UserRecord } from "../ports/records.ts";
import { ownData } from "../ports/shared-lookup.ts";
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
