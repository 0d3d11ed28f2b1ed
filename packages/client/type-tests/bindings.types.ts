// Compile-time checks of the Vue and Svelte bindings (`tsc -p type-tests`, part of `pnpm typecheck`): each
// `@ts-expect-error` must stay an error, and `Equals` pins the exact types an app's code sees.
import { derived, get, type Readable } from "svelte/store";
import type { ComputedRef } from "vue";
import { createLatchkeyClient, type ClientErrorCode, type SessionState, type User } from "../src/index.ts";
import { sessionStore } from "../src/svelte.ts";
import { useSession } from "../src/vue.ts";

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_: T): void {}

const client = createLatchkeyClient({ baseURL: "/auth" });

export function useVueBinding(): void {
  const session = useSession(client);
  assertType<Equals<typeof session, ComputedRef<SessionState>>>(true);
  const user = session.value.data?.user;
  assertType<Equals<typeof user, User | undefined>>(true);
  const code: ClientErrorCode | undefined = session.value.error?.code;
  void code;
  // @ts-expect-error the ref is read-only: the state changes only through the client
  session.value = { data: null, isPending: false, error: null, jwt: null };
  // @ts-expect-error responses are typed: there is no such field
  void session.value.data?.user.password;
  // @ts-expect-error it takes a Latchkey client (its session store), not a URL
  useSession("/auth");
}

export function svelteBinding(): void {
  const session = sessionStore(client);
  assertType<Equals<typeof session, Readable<SessionState>>>(true);
  const email = derived(session, (s) => s.data?.user.email ?? null);
  assertType<Equals<typeof email, Readable<string | null>>>(true);
  const now = get(session);
  const pending: boolean = now.isPending;
  void pending;
  // @ts-expect-error a readable store: nothing can set it from outside
  session.set(now);
  // @ts-expect-error responses are typed: there is no such field
  void now.data?.session.password;
  // @ts-expect-error it takes a Latchkey client (its session store), not a URL
  sessionStore("/auth");
}
