/** What core knows about the request that caused an operation (for events, audit and sessions). */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  /** Keeps background work (email delivery) alive after the response on runtimes that need it. */
  waitUntil?: (task: Promise<unknown>) => void;
  /**
   * Whether the request comes from a known device of the account `userId`: it carries a session of that user (what
   * the HTTP adapter answers), or another proof of a browser the account signed in from (a device cookie). The
   * email send limits give such a request the account's own allowance, which strangers cannot spend. Asked with
   * the owner of the address being emailed, and with null for an address without an account: it must do the same
   * work either way (its timing must not tell the two apart) and answer false for null. Absent: never known.
   */
  knownDevice?: (userId: string | null) => boolean | Promise<boolean>;
  /**
   * The trusted-device token of `twoFactor()` the request carries (its cookie, or the `latchkey-trusted-device`
   * header): a sign-in of that account from this device skips the second step while the token is live.
   */
  trustedDevice?: string | null;
}

/** Meta for trusted server calls (`auth.api`) that did not come from a request. */
export const SERVER_CALL: RequestMeta = { ip: null, userAgent: null };

/**
 * The meta of an `auth.api` call: the caller's, or `SERVER_CALL` when none was passed.
 *
 * @example
 * signIn: (input, meta) => service.signIn(input, orServerCall(meta)),
 */
export function orServerCall(meta: RequestMeta | undefined): RequestMeta {
  return meta ?? SERVER_CALL;
}

/** The longest User-Agent Latchkey stores (sessions, audit rows); longer ones are cut to this many characters. */
const MAX_STORED_USER_AGENT = 512;

/**
 * The User-Agent as stored in a session or an audit row: at most `MAX_STORED_USER_AGENT` characters, so a 16 KB
 * header sent with every failed sign-in does not become 16 KB per row.
 *
 * @example
 * storedUserAgent("x".repeat(16_000))?.length; // 512
 */
export function storedUserAgent(userAgent: string | null | undefined): string | null {
  return userAgent == null ? null : userAgent.slice(0, MAX_STORED_USER_AGENT);
}
