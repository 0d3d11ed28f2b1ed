/**
 * @latchkey/client/svelte: `sessionStore(client)`, a Svelte readable store (Svelte 4 or 5; an optional peer of
 * @latchkey/client). Use it with `$session` in components, or `fromStore` in Svelte 5 runes code.
 *
 * @example
 * <script lang="ts">
 *   import { createLatchkeyClient } from "@latchkey/client";
 *   import { sessionStore } from "@latchkey/client/svelte";
 *   const auth = createLatchkeyClient({ baseURL: "/auth" });
 *   const session = sessionStore(auth);
 * </script>
 * {#if !$session.isPending}<span>{$session.data ? $session.data.user.email : "Signed out"}</span>{/if}
 */
import { readable, type Readable } from "svelte/store";
import type { LatchkeyClient, SessionState } from "./index.ts";

/**
 * The client's session state as a readable store: it changes on sign-in, sign-out, window focus and every refetch.
 * The store listens to the client while it has subscribers (the first one triggers the first fetch).
 */
export function sessionStore(client: Pick<LatchkeyClient, "session">): Readable<SessionState> {
  return readable(client.session.get(), (set) => {
    const unsubscribe = client.session.subscribe(set);
    set(client.session.get());
    return unsubscribe;
  });
}
