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

/**
 * A page of users: an email or name prefix (case-insensitive), or every user newest first; the first with the total,
 * counted no further than `countLimit` (null: in full).
 */
export async function listUsers(
  store: Store,
  input: ListUsersInput,
  countLimit: number | null = null,
): Promise<ListUsersResult> {
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
  // The total on the first page only (decision 0074), and counted one past the limit at most (decision 0082): an
  // exact count of a million users costs more than the page itself. One more than the limit tells "exactly the
  // limit" from "more"; a store that ignores `atMost` still answers at most the limit.
  const [page, counted] = await Promise.all([
    store.users.listPage({ search, limit, cursor }),
    cursor !== null
      ? null
      : countLimit === null
        ? store.users.count(search)
        : store.users.count(search, countLimit + 1),
  ]);
  const users = page.items.map(toAdminUserView);
  if (counted === null) return { users, total: null, totalExact: null, nextCursor: page.nextCursor };
  const over = countLimit !== null && counted > countLimit;
  return { users, total: over ? countLimit : counted, totalExact: !over, nextCursor: page.nextCursor };
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
