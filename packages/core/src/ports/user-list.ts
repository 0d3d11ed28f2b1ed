import type { UserRecord } from "./records.ts";
import type { UserSearch } from "./store.ts";

/**
 * Where a page of `UserStore.listPage` ended: the sort key of its last user and that user's id. The key is the
 * creation time in milliseconds for the newest-first list, the email or the lower-cased name for a search.
 */
interface UserListPosition {
  key: string;
  id: string;
}

const kindOf = (search: UserSearch | null) => (search === null ? "t" : search.field === "email" ? "e" : "n");

/**
 * The sort key of `user` in a listing with `search`: what `UserListPosition.key` holds.
 *
 * @example
 * userListKey(user, null); // "1767225600000"
 */
export function userListKey(user: UserRecord, search: UserSearch | null): string {
  if (search === null) return String(user.createdAt.getTime());
  return search.field === "email" ? user.email : (user.name ?? "").toLowerCase();
}

/**
 * The opaque cursor of the page after `last` (every store writes the same shape, so a cursor names its listing).
 *
 * @example
 * const nextCursor = encodeUserCursor(null, { key: userListKey(last, null), id: last.id });
 */
function encodeUserCursor(search: UserSearch | null, last: UserListPosition): string {
  return `${kindOf(search)}:${encodeURIComponent(last.key)}:${last.id}`;
}

/**
 * The position a cursor of the same listing names; null for anything else (tampered with, or from a listing with
 * another search field), which stores answer with an empty page.
 *
 * @example
 * const after = cursor === null ? null : decodeUserCursor(cursor, search);
 */
export function decodeUserCursor(cursor: string, search: UserSearch | null): UserListPosition | null {
  const [kind, key, id, ...rest] = cursor.split(":");
  if (rest.length > 0 || kind !== kindOf(search) || key === undefined || !id) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(key);
  } catch {
    return null;
  }
  if (kind === "t" && !/^\d{1,15}$/.test(decoded)) return null;
  return { key: decoded, id };
}

/**
 * A page cut from `limit + 1` rows in listing order: the extra row only says that another page exists.
 *
 * @example
 * return userPage(rows, limit, search);
 */
export function userPage(
  rows: UserRecord[],
  limit: number,
  search: UserSearch | null,
): { items: UserRecord[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > limit && last ? encodeUserCursor(search, { key: userListKey(last, search), id: last.id }) : null;
  return { items, nextCursor };
}
