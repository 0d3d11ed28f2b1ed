import type { Page } from "@latchkey/core";
import { copy } from "./database.ts";

/** Sort key for keyset pagination: creation time (zero-padded) then id; newest first sorts it descending. */
export const orderKey = (at: Date, id: string) => `${String(at.getTime()).padStart(15, "0")}:${id}`;

/** One page of `sorted` (newest first) after `cursor`, the order key of the previous page's last item. */
export function page<T>(sorted: T[], limit: number, cursor: string | null, key: (t: T) => string): Page<T> {
  const start = cursor === null ? 0 : sorted.findIndex((t) => key(t) < cursor);
  const items = start < 0 ? [] : sorted.slice(start, start + limit);
  const last = items[items.length - 1];
  const more = start >= 0 && start + limit < sorted.length;
  return { items: items.map(copy), nextCursor: more && last ? key(last) : null };
}
