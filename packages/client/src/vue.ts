/**
 * @latchkey/client/vue: `useSession(client)` for Vue 3 (an optional peer of @latchkey/client).
 *
 * @example
 * <script setup lang="ts">
 * import { createLatchkeyClient } from "@latchkey/client";
 * import { useSession } from "@latchkey/client/vue";
 * const auth = createLatchkeyClient({ baseURL: "/auth" });
 * const session = useSession(auth);
 * </script>
 * <template>
 *   <span v-if="!session.isPending">{{ session.data ? session.data.user.email : "Signed out" }}</span>
 * </template>
 */
import {
  computed,
  getCurrentInstance,
  getCurrentScope,
  onBeforeUnmount,
  onMounted,
  onScopeDispose,
  shallowRef,
  type ComputedRef,
} from "vue";
import type { LatchkeyClient, SessionState } from "./index.ts";

/**
 * The client's session state as a read-only ref; it changes on sign-in, sign-out, window focus and every refetch.
 * In a component it listens from `onMounted` to `onBeforeUnmount` (so server rendering fetches nothing and the
 * state stays pending there); in any other effect scope it listens until the scope ends.
 */
export function useSession(client: Pick<LatchkeyClient, "session">): ComputedRef<SessionState> {
  const state = shallowRef<SessionState>(client.session.get());
  let stop: (() => void) | null = null;
  const start = () => {
    stop = client.session.subscribe((next) => {
      state.value = next;
    });
    // Another subscriber may have settled the state already: take the latest.
    state.value = client.session.get();
  };
  const end = () => {
    stop?.();
    stop = null;
  };
  if (getCurrentInstance()) {
    onMounted(start);
    onBeforeUnmount(end);
  } else {
    start();
    if (getCurrentScope()) onScopeDispose(end);
  }
  return computed(() => state.value);
}
