import { E2eAssertionError } from "./assert.ts";

/** Any WinterCG handler: `auth.handler`, a Worker's `fetch`, a Next.js route export. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A response with its body read once (JSON when it parses, else `null`). */
export interface E2eResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** A signed-in session as a browser (cookie) and an API client (Bearer) would hold it. */
export interface E2eSession {
  token: string;
  /** `name=value` of the session cookie, ready for a `Cookie` header. */
  cookie: string;
  userId: string;
  email: string;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Sends `Authorization: Bearer <token>`. */
  bearer?: string;
  /** Sends the session cookie; with `origin` (default: the target's own origin, which CSRF trusts). */
  cookie?: string;
  /** `Origin` header; `null` sends none. */
  origin?: string | null;
}

/**
 * Calls a handler the way a browser or an API client would, without a network: `handler(new Request(...))`.
 *
 * @example
 * import { E2eClient } from "@latchkey/e2e";
 * const client = new E2eClient({ handler: auth.handler, baseUrl: "https://app.example", basePath: "/auth" }, "203.0.113.7");
 * const res = await client.call("GET", "/get-session");
 */
export class E2eClient {
  readonly #handler: FetchHandler;
  readonly #ip: string;
  readonly baseUrl: string;
  readonly basePath: string;

  constructor(target: { handler: FetchHandler; baseUrl: string; basePath: string }, ip: string) {
    this.#handler = target.handler;
    this.#ip = ip;
    this.baseUrl = target.baseUrl.replace(/\/$/, "");
    this.basePath = target.basePath.replace(/\/$/, "");
  }

  /** The absolute URL of a path under the mount. */
  url(path: string): string {
    return `${this.baseUrl}${this.basePath}${path}`;
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<E2eResponse> {
    return this.send(method, this.url(path), options);
  }

  /** Like `call`, with an absolute URL (for paths outside the mount). */
  async send(method: string, url: string, options: CallOptions = {}): Promise<E2eResponse> {
    // The e2e app reads the client address from this header, so each journey has its own rate-limit bucket.
    const headers: Record<string, string> = { "x-e2e-ip": this.#ip, ...options.headers };
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    if (options.cookie) {
      headers.cookie = options.cookie;
      if (options.origin !== null) headers.origin = options.origin ?? new URL(this.baseUrl).origin;
    } else if (options.origin) {
      headers.origin = options.origin;
    }
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await this.#handler(new Request(url, { method, headers, body }));
    const text = await response.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: response.status, headers: response.headers, text, json };
  }
}

/**
 * Throws with the response body in the message unless the status matches (the body is what explains a failure).
 *
 * @example
 * import { expectStatus } from "@latchkey/e2e";
 * const body = expectStatus(res, 200, "sign-up") as { user: { id: string } };
 */
export function expectStatus(res: E2eResponse, status: number, what: string): unknown {
  if (res.status !== status)
    throw new E2eAssertionError(`${what}: expected HTTP ${status}, got ${res.status} ${res.text.slice(0, 500)}`);
  return res.json;
}

/**
 * Throws unless the response is the JSON error `{code, message}` with this status and code.
 *
 * @example
 * import { expectError } from "@latchkey/e2e";
 * expectError(res, 403, "INVALID_ORIGIN", "cross-site sign-out");
 */
export function expectError(res: E2eResponse, status: number, code: string, what: string): void {
  const body = expectStatus(res, status, what) as { code?: unknown; message?: unknown } | null;
  if (body?.code !== code || typeof body.message !== "string") {
    throw new E2eAssertionError(`${what}: expected {code: ${code}, message}, got ${res.text.slice(0, 500)}`);
  }
}

/**
 * The `name=value` of the first cookie a response sets other than the device cookie ("" when none): a sign-in
 * also sets `__Host-latchkey.device` (docs/security.md, device cookies), which no journey sends back as a session.
 *
 * @example
 * import { cookieFrom } from "@latchkey/e2e";
 * const cookie = cookieFrom(res); // "__Host-latchkey.session=..."
 */
export function cookieFrom(res: E2eResponse): string {
  const cookies = res.headers.getSetCookie().map((line) => line.split(";")[0]?.trim() ?? "");
  return cookies.find((cookie) => !/^[^=]*\.device=/.test(cookie)) ?? "";
}
