/** A position in a newest-first listing ordered by (time, id). */
export interface KeysetPosition {
  at: Date;
  id: string;
}

/** Encodes the last row of a page as the opaque cursor of the next one. */
function encodeCursor(position: KeysetPosition): string {
  return `${position.at.getTime()}:${position.id}`;
}

/**
 * Decodes a cursor made by `encodeCursor`. A cursor that is not one (tampered with, from another store) decodes
 * to null, which callers answer with an empty page rather than an error.
 */
export function decodeCursor(cursor: string): KeysetPosition | null {
  const colon = cursor.indexOf(":");
  const ms = Number(cursor.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(ms)) return null;
  return { at: new Date(ms), id: cursor.slice(colon + 1) };
}

/** Cuts a `limit + 1` row query result into a page: the extra row only says that another page exists. */
export function toPage<T>(
  rows: T[],
  limit: number,
  position: (row: T) => KeysetPosition,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(position(last)) : null };
}
