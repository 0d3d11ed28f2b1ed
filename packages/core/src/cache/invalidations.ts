// What travels on the cache carrier: invalidations as `s:<id>` lines, packed into payloads every carrier takes.

/** What an invalidation names: a session, a user (its sessions, keys and record), or an API key. */
export type Invalidation = { kind: "session" | "user" | "key"; id: string };

export const KIND_LETTER = { session: "s", user: "u", key: "k" } as const;
const LETTER_KIND: Record<string, Invalidation["kind"]> = { s: "session", u: "user", k: "key" };

/**
 * The largest payload one publication carries, in UTF-8 bytes. PostgreSQL refuses a `NOTIFY` payload of 8,000
 * bytes or more; below that every carrier takes it.
 */
const MAX_PAYLOAD_BYTES = 7900;
/** More payloads than this for one change (a sweep of thousands of keys): one "drop everything" message instead. */
const MAX_PAYLOADS = 16;
/** The message that tells every instance to drop everything: it always fits. */
export const DROP_EVERYTHING = "*";
const utf8 = new TextEncoder();

/**
 * `s:<id>` lines, one per invalidation (duplicates once): what travels on the carrier (ids only, never a token or a
 * hash), split into payloads of at most `MAX_PAYLOAD_BYTES`. A list too long for `MAX_PAYLOADS` payloads, or with a
 * line that cannot fit one, becomes the single "drop everything" message.
 */
export function encodeInvalidations(list: readonly Invalidation[]): string[] {
  const lines = [...new Set(list.map((i) => `${KIND_LETTER[i.kind]}:${i.id}`))];
  const payloads: string[] = [];
  let current = "";
  let bytes = 0;
  for (const line of lines) {
    const size = utf8.encode(line).length;
    if (size > MAX_PAYLOAD_BYTES) return [DROP_EVERYTHING];
    // Each line after the first adds its separator.
    if (current !== "" && bytes + 1 + size > MAX_PAYLOAD_BYTES) {
      payloads.push(current);
      current = "";
      bytes = 0;
    }
    current = current === "" ? line : `${current}\n${line}`;
    bytes += (bytes === 0 ? 0 : 1) + size;
  }
  if (current !== "") payloads.push(current);
  return payloads.length > MAX_PAYLOADS ? [DROP_EVERYTHING] : payloads;
}

export function decodeInvalidations(payload: string): Invalidation[] {
  const out: Invalidation[] = [];
  for (const line of payload.split("\n")) {
    const kind = LETTER_KIND[line.slice(0, 1)];
    if (kind && line[1] === ":" && line.length > 2) out.push({ kind, id: line.slice(2) });
  }
  return out;
}
