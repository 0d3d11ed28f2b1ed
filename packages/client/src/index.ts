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
import type {
  User,
  Session,
  ErrorCode,
  LatchkeyError,
  OperationId,
  Input,
  Output,
  Result,
  CallOptions,
  OperationMethods,
} from "./types.ts";

export { OPERATIONS };
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

export interface ClientOptions {
  /** Where the API is mounted: `https://app.example/auth`, or `/auth` in a browser on the same origin. */
  baseURL: string;
  /**
   * `"cookie"` (default): the browser carries the session cookie (`credentials: "include"`).
   * `"bearer"`: the client keeps the session token from sign-in answers and sends `Authorization: Bearer`.
   */
  auth?: "cookie" | "bearer";
  /** Bearer mode: a token to start with (e.g. restored from secure storage). */
  token?: string | null;
  /** Bearer mode: called whenever the token changes (sign-in, sign-out), to persist it. */
  onTokenChange?: (token: string | null) => void;
  /** Headers sent with every call (server-side: forward the incoming `cookie` and `origin`). */
  headers?: Record<string, string> | (() => Record<string, string>);
  /** A fetch implementation (default: the global one; `auth.handler` works for in-process calls). */
  fetch?: (request: Request) => Promise<Response>;
  /** Refetch the session when the window regains focus or becomes visible. Default true (browsers only). */
  refetchOnWindowFocus?: boolean;
  /**
   * A 503 answer with `Retry-After` (the server's hashing queue is full: `BUSY`; or the database is unreachable) is
   * retried once by itself after that many seconds (at most 30; a longer wait is answered as the error). Default
   * true; `false` answers every 503 at once.
   */
  retryOn503?: boolean;
  /**
   * Bearer mode: the device token to start with (`credentials.deviceToken` of an earlier sign-in, e.g. restored from
   * secure storage). The client keeps the latest one and sends it with every sign-in (`latchkey-device`), so this
   * device is known to the server: its sign-ins skip the per-address limits and have a lockout of their own.
   */
  deviceToken?: string | null;
  /** Bearer mode: called whenever the device token changes (each sign-in rotates it), to persist it. */
  onDeviceTokenChange?: (token: string | null) => void;
  /**
   * Bearer mode, with `twoFactor()` on the server: the trusted-device token to start with
   * (`credentials.trustedDeviceToken` of a `verifyTwoFactor({ trustDevice: true })`). The client keeps the latest one
   * and sends it with every sign-in (`latchkey-trusted-device`), so this device skips the second step while it lasts.
   */
  trustedDeviceToken?: string | null;
  /** Bearer mode: called whenever the trusted-device token changes, to persist it. */
  onTrustedDeviceTokenChange?: (token: string | null) => void;
}

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

// Calls after which the session (or the user in it) may have changed: the store refetches when they succeed.
const SESSION_CHANGING = new Set<OperationId>([
  "signUpEmail",
  "signInEmail",
  "signInEmailOtp",
  "signOut",
  "verifyEmail",
  "verifyEmailOtp",
  "updateUser",
  "changeEmail",
  "setPassword",
  "changePassword",
  "resetPassword",
  "resetPasswordOtp",
  "deleteAccount",
  "confirmAccountDeletion",
  "revokeSession",
  "revokeSessions",
  "verifyMagicLink",
  "verifyTwoFactor",
  "verifyTwoFactorRecoveryCode",
  // A native app's `{ provider, idToken }` sign-in answers a session (the redirect flow only a URL).
  "signInSocial",
  "passkeyAuthenticateVerify",
  "passkeySignUpVerify",
  // The session's active organization (`session.activeOrganizationId`).
  "createOrganization",
  "setActiveOrganization",
]);
// Sign-ins a trusted device of `twoFactor()` may skip the second step of (bearer mode sends its token with them).
const SIGN_INS = new Set<OperationId>([
  "signInEmail",
  "signInEmailOtp",
  "verifyMagicLink",
  "verifyEmail",
  "signInSocial",
  "passkeyAuthenticateVerify",
]);
// Calls that finish a pending two-factor sign-in (bearer mode sends the pending token with them).
const SECOND_STEPS = new Set<OperationId>(["verifyTwoFactor", "verifyTwoFactorRecoveryCode"]);
// Calls that end the current session: bearer mode forgets its token.
const SESSION_ENDING = new Set<OperationId>(["signOut", "deleteAccount", "confirmAccountDeletion", "revokeSessions"]);

function isErrorBody(value: unknown): value is { code: ErrorCode; message: string; details?: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { code?: unknown }).code === "string" &&
    typeof (value as { message?: unknown }).message === "string"
  );
}

/** What `buildRequest` needs from the client: where, how it authenticates, and the extra headers. */
interface RequestContext {
  base: string;
  mode: "cookie" | "bearer";
  token: string | null;
  /** Bearer mode: the device token a password sign-in sends (`latchkey-device`). */
  deviceToken: string | null;
  /** Bearer mode: the trusted-device token sign-ins send (`latchkey-trusted-device`). */
  trustedDeviceToken: string | null;
  /** Bearer mode: the pending two-factor sign-in the second step finishes (`latchkey-two-factor`). */
  twoFactorToken: string | null;
  headers: ClientOptions["headers"];
}

/** The URL (query string for GETs) and init (headers, JSON body, credentials mode) of one operation's request. */
function buildRequest<K extends OperationId>(
  ctx: RequestContext,
  operationId: K,
  input: Input<K> | undefined,
  callOptions: CallOptions,
): { url: string; init: RequestInit } {
  const op = OPERATIONS[operationId];
  // Path parameters (`/passkey/{id}`) come out of the input; the rest is the body or the query.
  let fields = input as Record<string, unknown> | undefined;
  let path: string = op.path;
  if (path.includes("{")) {
    const rest: Record<string, unknown> = { ...fields };
    path = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = rest[name];
      delete rest[name];
      return encodeURIComponent(String(value ?? ""));
    });
    fields = rest;
  }
  let url = `${ctx.base}${path}`;
  const headers: Record<string, string> = {
    accept: "application/json",
    ...(typeof ctx.headers === "function" ? ctx.headers() : ctx.headers),
    ...callOptions.headers,
  };
  let body: string | undefined;
  if (op.input === "body") {
    body = JSON.stringify(fields ?? {});
    headers["content-type"] = "application/json";
  } else if (op.input === "query" && fields) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(fields))
      if (value !== undefined && value !== null) query.set(name, String(value));
    const text = query.toString();
    if (text) url += `?${text}`;
  }
  if (ctx.mode === "bearer") {
    // Asks sign-in answers for the session token (a cookie-mode page never receives it).
    headers["latchkey-credentials"] = "bearer";
    if (ctx.token) headers.authorization = `Bearer ${ctx.token}`;
    // A password sign-in from a known device is not held by the anonymous limits (docs/security.md).
    if (ctx.deviceToken && operationId === "signInEmail") headers["latchkey-device"] = ctx.deviceToken;
    if (ctx.trustedDeviceToken && SIGN_INS.has(operationId))
      headers["latchkey-trusted-device"] = ctx.trustedDeviceToken;
    if (ctx.twoFactorToken && SECOND_STEPS.has(operationId)) headers["latchkey-two-factor"] = ctx.twoFactorToken;
  }
  const init: RequestInit = { method: op.method, headers, credentials: ctx.mode === "cookie" ? "include" : "omit" };
  if (body !== undefined) init.body = body;
  if (callOptions.signal) init.signal = callOptions.signal;
  return { url, init };
}

/** Sends; a 503 with `Retry-After` (when `retry`) is sent once more after that wait, and the second answer stands. */
async function sendHonouringRetryAfter(
  send: () => Promise<Response>,
  retry: boolean,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const response = await send();
  const wait = response.status === 503 && retry ? retryAfterSeconds(response) : null;
  if (wait === null) return response;
  await response.body?.cancel();
  await sleep(wait * 1000, signal);
  return send();
}

/** The seconds a 503's `Retry-After` asks for (a number of seconds, at most 30), or null: then no retry. */
function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get("retry-after")?.trim();
  if (!value || !/^\d+$/.test(value)) return null;
  const seconds = Number(value);
  return seconds <= 30 ? seconds : null;
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** The result of a fetch that threw (offline, DNS, CORS, aborted). */
function networkError(error: unknown): { data: null; error: LatchkeyError; response: null } {
  return {
    data: null,
    error: {
      code: "NETWORK_ERROR",
      message: error instanceof Error ? error.message : "The request failed",
      status: 0,
    },
    response: null,
  };
}

/** The JSON payload of a 2xx answer, or the `{ data: null, error }` result of any other (or of a non-JSON body). */
async function readAnswer(
  response: Response,
): Promise<{ payload: unknown } | { error: { data: null; error: LatchkeyError; response: Response } }> {
  let payload: unknown = null;
  const text = await response.text();
  try {
    payload = text ? JSON.parse(text) : null;
  } catch {
    payload = undefined;
  }
  if (!response.ok) {
    const error: LatchkeyError = isErrorBody(payload)
      ? {
          code: payload.code,
          message: payload.message,
          status: response.status,
          ...(payload.details === undefined ? {} : { details: payload.details }),
        }
      : {
          code: "INTERNAL_ERROR",
          message: `The server answered ${response.status} without a Latchkey error body`,
          status: response.status,
        };
    return { error: { data: null, error, response } };
  }
  if (payload === undefined) {
    return {
      error: {
        data: null,
        error: { code: "INTERNAL_ERROR", message: "The answer was not JSON", status: response.status },
        response,
      },
    };
  }
  return { payload };
}

/** One operation's `Request` (see buildRequest). */
function buildFetchRequest<K extends OperationId>(
  ctx: RequestContext,
  operationId: K,
  input: Input<K> | undefined,
  callOptions: CallOptions,
): Request {
  const { url, init } = buildRequest(ctx, operationId, input, callOptions);
  return new Request(url, init);
}

/** The tokens a sign-in answer carries for a Bearer client (`credentials.*`, and a second step's `twoFactorToken`). */
function credentialsOf(payload: unknown): {
  token: string | null;
  deviceToken: string | null;
  trustedDeviceToken: string | null;
  twoFactorToken: string | null;
} {
  const answer = payload as {
    credentials?: { token?: unknown; deviceToken?: unknown; trustedDeviceToken?: unknown };
    twoFactorToken?: unknown;
    deviceToken?: unknown;
  } | null;
  const credentials = answer?.credentials;
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    token: text(credentials?.token),
    deviceToken: text(credentials?.deviceToken) ?? text(answer?.deviceToken),
    trustedDeviceToken: text(credentials?.trustedDeviceToken),
    twoFactorToken: text(answer?.twoFactorToken),
  };
}

/** Bearer mode's tokens: the session's, the device's, the trusted device's and a pending two-factor sign-in's. */
function bearerTokens(options: ClientOptions) {
  let token = options.token ?? null;
  let deviceToken = options.deviceToken ?? null;
  let trustedDeviceToken = options.trustedDeviceToken ?? null;
  // The pending two-factor sign-in of the last sign-in that answered `twoFactorRequired`.
  let twoFactorToken: string | null = null;
  const setToken = (next: string | null) => {
    if (next === token) return;
    token = next;
    options.onTokenChange?.(next);
  };
  return {
    /** The tokens a call leaves with (a sign-out forgets the session token before its request leaves). */
    current: () => ({ token, deviceToken, trustedDeviceToken, twoFactorToken }),
    get token() {
      return token;
    },
    setToken,
    /** The tokens an answer carries; a session-ending call drops the session token. */
    keep(operationId: OperationId, payload: unknown) {
      const found = credentialsOf(payload);
      if (found.deviceToken !== null && found.deviceToken !== deviceToken) {
        deviceToken = found.deviceToken;
        options.onDeviceTokenChange?.(deviceToken);
      }
      if (found.trustedDeviceToken !== null && found.trustedDeviceToken !== trustedDeviceToken) {
        trustedDeviceToken = found.trustedDeviceToken;
        options.onTrustedDeviceTokenChange?.(trustedDeviceToken);
      }
      if (found.twoFactorToken !== null) twoFactorToken = found.twoFactorToken;
      else if (SECOND_STEPS.has(operationId)) twoFactorToken = null;
      if (found.token !== null) setToken(found.token);
      else if (SESSION_ENDING.has(operationId)) setToken(null);
    },
  };
}

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

function createSessionStore(
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
