import { invalidField } from "../errors/errors.ts";
import type { AuthContext } from "../context/context.ts";
import type { UserRecord } from "../ports/records.ts";
import type { Store, UserSearch } from "../ports/store.ts";
import { toApiKeyView } from "../api-key/index.ts";
import { toSessionView } from "../session/session.ts";
import { isoTime } from "../session/iso-time.ts";
import { toAdminUserView, type AdminUserDetail, type ListUsersInput, type ListUsersResult } from "./view.ts";

// The admin API's reads: the list (a keyset page and its total) and one user in full.

const MAX_LIMIT = 100;

/** A page of users: an email or name prefix (case-insensitive), or every user newest first; the first with the total. */
export async function listUsers(store: Store, input: ListUsersInput): Promise<ListUsersResult> {
  const limit = input.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw invalidField("limit", `limit must be an integer from 1 to ${MAX_LIMIT}`);
  let search: UserSearch | null = null;
  const value = input.searchValue;
  if (value !== undefined && value !== "") {
    if (typeof value !== "string" || value.length > 320)
      throw invalidField("searchValue", "searchValue must be at most 320 characters");
    const field = input.searchField ?? "email";
    if (field !== "email" && field !== "name")
      throw invalidField("searchField", 'searchField must be "email" or "name"');
    // Emails are stored trimmed and lower-cased; names are compared lower-cased.
    search = { field, prefix: value.trim().toLowerCase() };
  }
  const cursor = input.cursor ?? null;
  if (cursor !== null && (typeof cursor !== "string" || cursor.length > 1024))
    throw invalidField("cursor", "cursor must come from a previous page");
  // The total on the first page only: counting a million users costs more than the page itself, and a listing
  // that goes on already knows it (decision 0074).
  const [page, total] = await Promise.all([
    store.users.listPage({ search, limit, cursor }),
    cursor === null ? store.users.count(search) : null,
  ]);
  return { users: page.items.map(toAdminUserView), total, nextCursor: page.nextCursor };
}

/** The user with their sessions, linked accounts, API keys and latest 20 audit rows. 404 `NOT_FOUND`. */
export async function userDetail(ctx: AuthContext, user: UserRecord): Promise<AdminUserDetail> {
  const { store } = ctx;
  const [sessions, accounts, keys, audit] = await Promise.all([
    store.sessions.listByUser(user.id),
    store.accounts.listByUser(user.id),
    store.apiKeys ? store.apiKeys.listByUser(user.id, { limit: 100, cursor: null }) : null,
    store.audit ? store.audit.list({ userId: user.id, limit: 20, cursor: null }) : null,
  ]);
  const now = ctx.clock.now();
  return {
    user: toAdminUserView(user),
    sessions: sessions.filter((s) => s.expiresAt.getTime() > now).map(toSessionView),
    accounts: accounts.map((a) => ({
      id: a.id,
      providerId: a.providerId,
      accountId: a.accountId,
      createdAt: isoTime(a.createdAt),
    })),
    apiKeys: keys?.items.map(toApiKeyView) ?? [],
    auditLog:
      audit?.items.map((row) => ({
        id: row.id,
        type: row.type,
        at: isoTime(row.at),
        ip: row.ip,
        userAgent: row.userAgent,
      })) ?? [],
  };
}
