import type { Store } from "@latchkey/core";
import { user } from "./fixtures.ts";

/** A new user in `store`, to own the keys of one `api keys` case. */
export async function createOwner(store: Store) {
  const u = user();
  await store.users.create(u, []);
  return u;
}
