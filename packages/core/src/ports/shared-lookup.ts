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

/** The shared entry `copy` was made from (see `markSharedCopy`), or undefined for a lookup read from the store. */
export function sharedOrigin(copy: object): object | undefined {
  return (copy as Marked)[SHARED_ENTRY];
}
