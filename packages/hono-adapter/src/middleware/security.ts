import type { Context, MiddlewareHandler } from "hono";
import { AuthError, originOf, type ResolvedConfig } from "@latchkey/core";
import { copiedFrom } from "../http/client-ip.ts";
import { errorResponse } from "../http/errors.ts";
import { readCookie } from "../http/cookies.ts";
import { editHeaders } from "../http/host-response.ts";

const MAX_BODY_BYTES = 64 * 1024;

// Responses that already carry the headers: the host's `auth.middleware` and the mounted sub-app both add them, and
// the outer layer need not set the same six values again on the same response (each set is validated by Headers).
const decorated = new WeakSet<Response>();

/** Puts the security headers on `c.res` (the answer as it stands), unless an inner layer already did. */
export function applySecurityHeaders(c: Context, config: ResolvedConfig): void {
  if (decorated.has(c.res)) return;
  // A host route's `Response.redirect()` or proxied `fetch()` response has immutable headers: copied first.
  editHeaders(c, (h) => {
    h.set("x-content-type-options", "nosniff");
    h.set("referrer-policy", "no-referrer");
    h.set("x-frame-options", "DENY");
    if (!h.has("content-security-policy")) h.set("content-security-policy", "frame-ancestors 'none'");
    if (config.cookies.secure) h.set("strict-transport-security", "max-age=31536000; includeSubDomains");
    if (!h.has("cache-control")) h.set("cache-control", "no-store");
  });
  decorated.add(c.res);
}

/** Security headers on every response, errors and 404s included. */
export function securityHeaders(config: ResolvedConfig): MiddlewareHandler {
  return async (c, next) => {
    await next();
    applySecurityHeaders(c, config);
  };
}

/** The methods that change state: the body rules and the CSRF check apply to these only. */
export const MUTATING_METHODS = ["POST", "PUT", "PATCH", "DELETE"] as const;
const MUTATING = new Set<string>(MUTATING_METHODS);

const BODY_HEADERS = ["content-type", "content-length", "transfer-encoding"];

/** The same request with no body and no body headers: what validation sees for a missing or empty body. */
function withoutBody(req: Request): Request {
  const headers = new Headers(req.headers);
  for (const name of BODY_HEADERS) headers.delete(name);
  return copiedFrom(new Request(req.url, { method: req.method, headers, signal: req.signal }), req);
}

/**
 * Whether the request really carries body bytes. A declared length answers it; otherwise (no header, a chunked
 * body, Node's stream for a bodiless POST) the first non-empty chunk is read and put back in front of the rest.
 */
async function presentBody(c: Context): Promise<boolean> {
  const req = c.req.raw;
  const length = req.headers.get("content-length");
  if (length !== null && /^\d+$/.test(length)) return Number(length) > 0;
  if (req.body === null) return false;
  const reader = req.body.getReader();
  let first: Uint8Array | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return false;
    if (value && value.byteLength > 0) {
      first = value;
      break;
    }
  }
  const head = first;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  c.req.raw = copiedFrom(
    new Request(req.url, {
      method: req.method,
      headers: req.headers,
      body,
      signal: req.signal,
      duplex: "half",
    } as RequestInit),
    req,
  );
  return true;
}

/**
 * The body's bytes, counted as they are read whatever `Content-Length` says (a caller that builds its own
 * `Request` can declare any length): null as soon as there are more than `max`.
 */
async function readAtMost(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

const tooLarge = () => errorResponse(new AuthError("PAYLOAD_TOO_LARGE", "The request body is larger than 64 KiB"));

/**
 * A missing or empty body counts as no body (validated as `{}`), whatever its headers say; a present body
 * must be JSON (415 otherwise) and at most 64 KiB (413), counted as it is read, before anything parses it.
 */
export function bodyGuard(): MiddlewareHandler {
  return async (c, next) => {
    if (!MUTATING.has(c.req.method)) return next();
    if (!(await presentBody(c))) {
      if (c.req.raw.body !== null || BODY_HEADERS.some((name) => c.req.raw.headers.has(name)))
        c.req.raw = withoutBody(c.req.raw);
      return next();
    }
    const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json")
      return errorResponse(new AuthError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json"));
    // A declared length over the limit is refused before reading; a smaller one is not believed: the bytes are
    // counted as they arrive, and the parsers then see exactly the bytes that were counted.
    const declared = c.req.header("content-length");
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > MAX_BODY_BYTES) return tooLarge();
    const req = c.req.raw;
    const bytes = req.body === null ? new Uint8Array(0) : await readAtMost(req.body, MAX_BODY_BYTES);
    if (bytes === null) return tooLarge();
    const headers = new Headers(req.headers);
    headers.delete("transfer-encoding");
    headers.set("content-length", String(bytes.byteLength));
    c.req.raw = copiedFrom(
      new Request(req.url, { method: req.method, headers, body: bytes as BufferSource, signal: req.signal }),
      req,
    );
    return next();
  };
}

/**
 * CSRF: a state-changing request that carries the session cookie must come from a trusted origin
 * (`Origin`, else `Referer`): neither is 403 `MISSING_ORIGIN`, an untrusted or opaque (`null`) one 403
 * `INVALID_ORIGIN`. Bearer- or API-key-only requests carry no ambient credential and skip it.
 */
export function csrfProtection(config: ResolvedConfig): MiddlewareHandler {
  return async (c, next) => csrfRefusal(c, config) ?? next();
}

/** The CSRF check of `csrfProtection` as a function: the 403 answer for this request, or null to go on. */
export function csrfRefusal(c: Context, config: ResolvedConfig): Response | null {
  if (!MUTATING.has(c.req.method)) return null;
  if (readCookie(c.req.header("cookie"), config.cookies.name) === null) return null;
  const claimed = c.req.header("origin") ?? c.req.header("referer");
  if (claimed === undefined || claimed === "") {
    // Browsers send Origin on every cross-origin and same-origin POST; its absence means a non-browser client
    // (curl, a server) that carries the cookie, which should use Bearer instead, or a stripped header.
    return errorResponse(
      new AuthError(
        "MISSING_ORIGIN",
        "A request carrying the session cookie must send an Origin (or Referer) header; clients without one should authenticate with Authorization: Bearer",
      ),
    );
  }
  const origin = originOf(claimed);
  if (origin === null || !config.trustedOrigins.includes(origin)) {
    return errorResponse(new AuthError("INVALID_ORIGIN", "The request origin is not trusted"));
  }
  return null;
}

/** Sign-in and code-sending endpoints also refuse cross-site top-level navigations (form posts). */
export function rejectCrossSiteNavigation(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.header("sec-fetch-site") === "cross-site" && c.req.header("sec-fetch-mode") === "navigate") {
      return errorResponse(new AuthError("INVALID_ORIGIN", "Cross-site navigations cannot call this endpoint"));
    }
    return next();
  };
}
