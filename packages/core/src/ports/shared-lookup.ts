// A lookup cache shares one entry between requests and hands each caller its own copy. What is derived from the
// records alone (the views of a session, their JSON) can then be computed once per entry instead of once per
// request, and it ends with the entry: an entry is never changed in place, a change replaces or drops it.
// The link is a symbol-keyed property of the copy (not a WeakMap: a weak key per request would cost every
// garbage collection an ephemeron to trace).
const SHARED_ENTRY = Symbol("latchkey.sharedEntry");

type Marked = { [SHARED_ENTRY]?: object };

/** Marks `copy` as a caller's copy of `entry`, a value a cache shares between requests and never changes in place. */
export function markSharedCopy(copy: object, entry: object): void {
  (copy as Marked)[SHARED_ENTRY] = entry;
}

/**
 * A caller's own copy of a JSON value a shared entry holds (a user's `metadata` and `appMetadata`, a key's
 * `permissions`): a top-level copy of a record or a view still shares these, and a caller that changed one in place
 * would change what later requests read, permission checks included.
 */
export function ownData<T>(value: T): T {
  return value !== null && typeof value === "object" ? structuredClone(value) : value;
}

/** The shared entry `copy` was made from (see `markSharedCopy`), or undefined for a lookup read from the store. */
export function sharedOrigin(copy: object): object | undefined {
  return (copy as Marked)[SHARED_ENTRY];
}

// A port the lookup cache stands in front of can also answer from memory alone, synchronously: the shared entry
// held under a hash, without a copy and without a promise. Only a service that derives its answer from the records
// without changing them may use it (session validation); anything else reads through the port. A port without a
// cache in front of it (the store's own, a transaction's) has none. Kept beside the port rather than on it: a store
// may be a proxy that answers any property it is asked for.
const peeks = new WeakMap<object, SharedPeek>();

/** Reads the entry a cache holds under a hash; undefined when it holds none (the caller then reads the port). */
export type SharedPeek = (hash: string) => object | undefined;

/** Records that `port` (a port the cache stands in front of) reads its shared entries with `peek`. */
export function offerSharedPeek(port: object, peek: SharedPeek): void {
  peeks.set(port, peek);
}

/** The synchronous read of shared entries `port` offers (see `offerSharedPeek`), or undefined: then read the port. */
export function sharedPeekOf(port: object): SharedPeek | undefined {
  return peeks.get(port);
}
