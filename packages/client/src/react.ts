/**
 * @latchkey/client/react: `useSession(client)` for React 18+ (an optional peer of @latchkey/client).
 *
 * @example
 * import { createLatchkeyClient } from "@latchkey/client";
 * import { useSession } from "@latchkey/client/react";
 * const auth = createLatchkeyClient({ baseURL: "/auth" });
 * function Header() {
 *   const { data, isPending } = useSession(auth);
 *   return isPending ? null : <span>{data ? data.user.email : "Signed out"}</span>;
 * }
 */
import { useSyncExternalStore } from "react";
import type { LatchkeyClient, SessionState } from "./index.ts";

const SERVER_STATE: SessionState = { data: null, isPending: true, error: null, jwt: null };

/** The client's session state; re-renders on sign-in, sign-out, window focus and every refetch. */
export function useSession(client: Pick<LatchkeyClient, "session">): SessionState {
  return useSyncExternalStore(client.session.subscribe, client.session.get, () => SERVER_STATE);
}
