import type { LatchkeyError, Output, Result, Session, User } from "./types.ts";

export interface SessionState {
  /** The signed-in user and session, or null. */
  data: { user: User; session: Session } | null;
  /** True until the first answer (and while a refetch runs after none had arrived). */
  isPending: boolean;
  error: LatchkeyError | null;
  /** The latest `set-auth-jwt` value (JWT plugin), or null. */
  jwt: string | null;
}

export interface SessionStore {
  /** The current state (the same object until something changes). */
  get(): SessionState;
  /** Calls `listener` after every change; the first subscriber triggers the first fetch. Returns the unsubscribe. */
  subscribe(listener: (state: SessionState) => void): () => void;
  /** Asks `/get-session` again (calls made while one is under way share one follow-up request). */
  refetch(): Promise<SessionState>;
}

/** The session store behind `client.session`: one `/get-session` at a time, refetched after session changes. */
export function createSessionStore(
  fetchSession: () => Promise<Result<Output<"getSession">>>,
  currentJwt: () => string | null,
  refetchOnFocus: boolean,
): SessionStore & { accept(data: SessionState["data"]): void; clear(): void } {
  let state: SessionState = { data: null, isPending: true, error: null, jwt: null };
  const listeners = new Set<(state: SessionState) => void>();
  let inFlight: Promise<SessionState> | null = null;
  let started = false;
  let detachFocus: (() => void) | null = null;

  const set = (next: SessionState) => {
    if (
      next.data === state.data &&
      next.isPending === state.isPending &&
      next.error === state.error &&
      next.jwt === state.jwt
    )
      return;
    state = next;
    for (const listener of [...listeners]) listener(state);
  };

  let queued: Promise<SessionState> | null = null;
  const refetch = (): Promise<SessionState> => {
    // A request already under way may have left before a sign-in or sign-out: ask once more after it.
    if (inFlight) {
      queued ??= inFlight.then(() => {
        queued = null;
        return refetch();
      });
      return queued;
    }
    inFlight = (async () => {
      try {
        const result = await fetchSession();
        if (result.error) set({ ...state, isPending: false, error: result.error, jwt: currentJwt() });
        return state;
      } finally {
        inFlight = null;
      }
    })();
    return inFlight;
  };

  const onFocus = () => {
    const doc = (globalThis as { document?: { visibilityState?: string } }).document;
    if (doc?.visibilityState === undefined || doc.visibilityState === "visible") void refetch();
  };

  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener);
      if (!started) {
        started = true;
        void refetch();
      }
      const win = globalThis as {
        addEventListener?: (type: string, fn: () => void) => void;
        removeEventListener?: (type: string, fn: () => void) => void;
        document?: unknown;
      };
      if (refetchOnFocus && !detachFocus && typeof win.addEventListener === "function" && win.document !== undefined) {
        win.addEventListener("focus", onFocus);
        win.addEventListener("visibilitychange", onFocus);
        detachFocus = () => {
          win.removeEventListener?.("focus", onFocus);
          win.removeEventListener?.("visibilitychange", onFocus);
        };
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && detachFocus) {
          detachFocus();
          detachFocus = null;
        }
      };
    },
    refetch,
    clear() {
      set({ data: null, isPending: false, error: null, jwt: null });
    },
    accept(data) {
      // A fresh object only when something changed, so React keeps the same snapshot otherwise.
      const same = JSON.stringify(data) === JSON.stringify(state.data);
      set({ data: same ? state.data : data, isPending: false, error: null, jwt: currentJwt() });
    },
  };
}
