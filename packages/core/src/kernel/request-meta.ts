/** What core knows about the request that caused an operation (for events, audit and sessions). */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  /** Keeps background work (email delivery) alive after the response on runtimes that need it. */
  waitUntil?: (task: Promise<unknown>) => void;
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
