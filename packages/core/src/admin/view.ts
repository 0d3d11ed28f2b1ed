import { invalidField } from "../errors/errors.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import type { ApiKeyView } from "../api-key/index.ts";
import { toUserView, type SessionView, type UserView } from "../session/session.ts";
import { isoTime } from "../session/iso-time.ts";

// What the admin API takes and answers: its inputs, a user as an admin sees them, and the user's roles.

/** A user as an admin sees them: the user's own view, and the ban (with the admin's reason). */
export interface AdminUserView extends UserView {
  banned: boolean;
  banReason: string | null;
  /** When the ban ends (ISO time); null for a ban without an end, or no ban. */
  banExpires: string | null;
}

/** `GET /admin/list-users`: a prefix search on email or name, or every user newest first; a page at a time. */
export interface ListUsersInput {
  searchField?: "email" | "name";
  searchValue?: string;
  /** 1 to 100; default 20. */
  limit?: number;
  cursor?: string | null;
}

/** A page of the admin list, with how many users the whole listing has. */
export interface ListUsersResult {
  users: AdminUserView[];
  /**
   * How many users the whole listing has: on the first page (no `cursor`); null on the pages after it. Counted no
   * further than `admin({ listUsersCountLimit })` (100,000 by default): beyond it, that limit, with `totalExact: false`.
   */
  total: number | null;
  /** Whether `total` is the exact count (false: the listing has more than `total`); null on the pages after the first. */
  totalExact: boolean | null;
  nextCursor: string | null;
}

/** `GET /admin/get-user`: the user with their sessions, linked accounts, API keys and latest audit rows. */
export interface AdminUserDetail {
  user: AdminUserView;
  sessions: SessionView[];
  accounts: Array<{ id: string; providerId: string; accountId: string | null; createdAt: string }>;
  apiKeys: ApiKeyView[];
  auditLog: Array<{ id: string; type: string; at: string; ip: string | null; userAgent: string | null }>;
}

/** `POST /admin/ban-user`: why (shown to admins only) and for how long (seconds; none: until unbanned). */
export interface BanUserInput {
  userId: string;
  banReason?: string | null;
  banExpiresIn?: number | null;
}

/** What the admin service needs from the rest of core: the user insert of `auth.api.createUser`, and deletion. */
export interface AdminAccountOps {
  createUser(
    input: { email: string; password: string; name?: string | null; emailVerified?: boolean },
    meta: RequestMeta,
  ): Promise<UserView>;
  removeUser(user: UserRecord, meta: RequestMeta): Promise<boolean>;
}

const ROLE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The user's roles: `appMetadata.role` as a string (comma-separated roles allowed, as Better Auth writes them) or an
 * array of strings; anything else is no role.
 *
 * @example
 * rolesOf({ appMetadata: { role: "admin,support" } }); // ["admin", "support"]
 */
export function rolesOf(user: Pick<UserRecord, "appMetadata">): string[] {
  const role = user.appMetadata.role;
  if (typeof role === "string")
    return role
      .split(",")
      .map((r) => r.trim())
      .filter((r) => r !== "");
  if (Array.isArray(role)) return role.filter((r): r is string => typeof r === "string");
  return [];
}

/** The admin view of a user record. */
export function toAdminUserView(user: UserRecord): AdminUserView {
  return {
    ...toUserView(user),
    banned: user.banned,
    banReason: user.banReason,
    banExpires: user.banExpires === null ? null : isoTime(user.banExpires),
  };
}

/** A role or list of roles, each a role name; 400 naming `role` otherwise. */
export function roleValue(role: unknown): string | string[] {
  const ok = (r: unknown): r is string => typeof r === "string" && ROLE.test(r);
  if (ok(role)) return role;
  if (Array.isArray(role) && role.length > 0 && role.length <= 16 && role.every(ok)) return [...new Set(role)];
  throw invalidField("role", "role must be a role name (letters, digits, _ and -) or a list of them");
}
