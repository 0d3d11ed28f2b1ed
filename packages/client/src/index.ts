/**
 * @latchkey/client: a typed client for Latchkey's HTTP API, for browsers and servers.
 *
 * @example
 * import { createLatchkeyClient } from "@latchkey/client";
 * const auth = createLatchkeyClient({ baseURL: "https://app.example/auth" });
 * const { data, error } = await auth.signInEmail({ email: "ada@example.com", password: "correct horse battery" });
 * if (error) console.log(error.code); // "INVALID_CREDENTIALS" | "ACCOUNT_LOCKED" | ...
 */
import { OPERATIONS } from "./generated/api.ts";
import { type SocialMethods, socialMethods } from "./social.ts";
import { type PasskeyMethods, passkeyMethods } from "./passkey.ts";
import type { OperationId, Input, Output, Result, CallOptions, OperationMethods } from "./types.ts";
import type { ClientOptions } from "./client-options.ts";
import { createSessionStore, type SessionState, type SessionStore } from "./session-store.ts";
import { SESSION_CHANGING, SESSION_ENDING } from "./call-kinds.ts";
import { buildFetchRequest, networkError, readAnswer, sendHonouringRetryAfter } from "./request.ts";
import { bearerTokens } from "./bearer.ts";

export { OPERATIONS };
export type { ClientOptions } from "./client-options.ts";
export type { SessionState, SessionStore } from "./session-store.ts";
export type { SocialCallOptions, SocialMethods } from "./social.ts";
export type { PasskeyMethods, PasskeyRegisterInput, PasskeySignInInput, PasskeySignUpInput } from "./passkey.ts";
export type { components, operations, paths } from "./generated/api.ts";
export type {
  Schemas,
  User,
  Session,
  ApiKey,
  SessionListItem,
  ApiKeyUsage,
  ErrorCode,
  ClientErrorCode,
  LatchkeyError,
  OperationId,
  Input,
  Output,
  Result,
  CallOptions,
  OperationMethod,
  OperationMethods,
  CallOperation,
} from "./types.ts";

export type LatchkeyClient = OperationMethods &
  SocialMethods &
  PasskeyMethods & {
    /** The session store components subscribe to (React: `useSession(client)` from `@latchkey/client/react`). */
    session: SessionStore;
    /** Bearer mode: the current session token (`getToken()` is the JWT endpoint). */
    getBearerToken(): string | null;
    setBearerToken(token: string | null): void;
    /** The latest `set-auth-jwt` value, or null. */
    getJwt(): string | null;
    /** Any operation by its `operationId`. */
    call<K extends OperationId>(operationId: K, input?: Input<K>, options?: CallOptions): Promise<Result<Output<K>>>;
  };

/**
 * Creates a client. Every method resolves to `{ data, error }`; `error.code` is a union of Latchkey's codes.
 *
 * @example
 * const auth = createLatchkeyClient({ baseURL: "/auth" });
 * auth.session.subscribe((s) => render(s.data?.user));
 * await auth.signInEmail({ email, password }); // the store refetches
 */
export function createLatchkeyClient(options: ClientOptions): LatchkeyClient {
  const base = options.baseURL.replace(/\/+$/, "");
  const mode = options.auth ?? "cookie";
  const doFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const tokens = bearerTokens(options);
  let jwt: string | null = null;
  // Bumped when a session-changing call leaves and when it is answered: a get-session answer that left under an
  // older generation is returned to its caller but never put into the session store (nor its JWT kept).
  let generation = 0;

  async function call<K extends OperationId>(
    operationId: K,
    input?: Input<K>,
    callOptions: CallOptions = {},
  ): Promise<Result<Output<K>>> {
    // The credentials this call was made with: a sign-out forgets the token locally before its request leaves.
    const context = { base, mode, ...tokens.current(), headers: options.headers };
    const send = () => doFetch(buildFetchRequest(context, operationId, input, callOptions));
    const changing = SESSION_CHANGING.has(operationId);
    if (changing) generation++;
    const leftAt = generation;
    if (operationId === "signOut") {
      // Forget locally first, then tell the server: a sign-out whose request fails (offline) or whose follow-up
      // get-session fails must not leave the previous user on screen or their Bearer token and JWT in memory.
      jwt = null;
      if (mode === "bearer") tokens.setToken(null);
      store.clear();
    }
    let response: Response;
    try {
      response = await sendHonouringRetryAfter(send, options.retryOn503 !== false, callOptions.signal);
    } catch (error) {
      if (changing) generation++;
      return networkError(error);
    }
    if (changing) generation++;
    const stale = operationId === "getSession" && leftAt !== generation;
    const headerJwt = stale ? null : response.headers.get("set-auth-jwt");
    if (headerJwt) jwt = headerJwt;
    // A 401 means no session stands behind this client any more: the JWT it minted must go too, and the
    // session store learns it (get-session itself answers 200 null, never 401).
    else if (response.status === 401 && !stale) {
      jwt = null;
      if (operationId !== "getSession") void store.refetch();
    }
    const answer = await readAnswer(response);
    if ("error" in answer) return answer.error;
    const payload = answer.payload;
    if (stale) return { data: payload as Output<K>, error: null, response };
    // Signed out, deleted, or no session: the previous user's JWT must not outlive it (getJwt, session.jwt).
    if (SESSION_ENDING.has(operationId) || (operationId === "getSession" && payload === null)) jwt = null;
    if (mode === "bearer") tokens.keep(operationId, payload);
    if (operationId === "getSession") store.accept(payload as SessionState["data"]);
    else if (SESSION_CHANGING.has(operationId)) void store.refetch();
    return { data: payload as Output<K>, error: null, response };
  }

  const store = createSessionStore(
    () => call("getSession"),
    () => jwt,
    options.refetchOnWindowFocus ?? true,
  );

  return {
    ...operationMethods(call),
    ...socialMethods(call),
    ...passkeyMethods(call),
    session: store,
    getBearerToken: () => tokens.token,
    setBearerToken: tokens.setToken,
    getJwt: () => jwt,
    call,
  };
}

/** One method per operation, each a `call` of its id (operations without input take only the call options). */
function operationMethods(call: LatchkeyClient["call"]): OperationMethods {
  const methods = {} as Record<OperationId, (...args: unknown[]) => Promise<unknown>>;
  for (const id of Object.keys(OPERATIONS) as OperationId[]) {
    const kind = OPERATIONS[id].input;
    methods[id] =
      kind === "none"
        ? (callOptions?: unknown) => call(id, undefined, callOptions as CallOptions | undefined)
        : (input?: unknown, callOptions?: unknown) =>
            call(id, input as Input<typeof id>, callOptions as CallOptions | undefined);
  }
  return methods as unknown as OperationMethods;
}
