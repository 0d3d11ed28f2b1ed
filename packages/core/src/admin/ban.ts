import type { UserRecord } from "../ports/records.ts";
import type { Store } from "../ports/store.ts";

/**
 * A ban, written to the store: the flag first (the user row's `banned`, `banReason`, `banExpires`), then every
 * session of the user deleted (and every session they started by impersonating someone), then every enabled API
 * key disabled, page by page. The order is what keeps it atomic
 * with sign-ins (see `SessionStore.create`). Null when the user does not exist. `AdminService.ban` and
 * `latchkey admin ban` both use it; events are the caller's.
 *
 * @example
 * const outcome = await applyBan(store, userId, { reason: "spam", expires: null }, new Date());
 */
export async function applyBan(
  store: Store,
  userId: string,
  ban: { reason: string | null; expires: Date | null },
  at: Date,
): Promise<{
  user: UserRecord;
  revoked: number;
  disabled: number;
  impersonations: Array<{ id: string; userId: string }>;
} | null> {
  const updated = await store.users.update(userId, {
    banned: true,
    banReason: ban.reason,
    banExpires: ban.expires,
    updatedAt: at,
  });
  if (!updated?.ok) return null;
  // Second, after the flag: a session a racing sign-in wrote before the flag is found here; one after it is
  // refused by the store.
  const revoked = await store.sessions.deleteByUser(userId);
  // A banned user has no authority either: impersonations they started (as an admin once) end too.
  const impersonations = await store.sessions.deleteImpersonatedBy(userId);
  const keys = store.apiKeys;
  let disabled = 0;
  if (keys) {
    let cursor: string | null = null;
    do {
      const page = await keys.listByUser(userId, { limit: 100, cursor });
      for (const key of page.items)
        if (key.enabled && (await keys.update(key.id, userId, { enabled: false, updatedAt: at }))) disabled++;
      cursor = page.nextCursor;
    } while (cursor !== null);
  }
  return { user: updated.value, revoked, disabled, impersonations };
}
