/** What `createLatchkeyClient` takes. */
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
