/** What core knows about the request that caused an operation (for events, audit and sessions). */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  /** Keeps background work (email delivery) alive after the response on runtimes that need it. */
  waitUntil?: (task: Promise<unknown>) => void;
}

/** Meta for trusted server calls (`auth.api`) that did not come from a request. */
export const SERVER_CALL: RequestMeta = { ip: null, userAgent: null };
