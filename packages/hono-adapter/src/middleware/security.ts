import type { Context, MiddlewareHandler } from "hono";
import { AuthError, originOf, type ResolvedConfig } from "@latchkey/core";
import { copiedFrom } from "../http/client-ip.ts";
import { errorResponse } from "../http/errors.ts";
import { readCookie } from "../http/cookies.ts";
import { editHeaders } from "../http/host-response.ts";

const MAX_BODY_BYTES = 64 * 1024;
/**
 * The deepest a body may nest objects and arrays (`{}` is 1 level, `{"a":{}}` 2). Everything after the parser
 * that walks a value (validation, the NUL check, metadata serialization, the stores) recurses, so a body is refused
 * past this depth before any of it runs: JSON.parse alone takes 10,000 levels, the code after it does not.
 */
export const MAX_BODY_DEPTH = 32;

// Responses that already carry the headers: the host's `auth.middleware` and the mounted sub-app both add them, and
// the outer layer need not set the same six values again on the same response (each set is validated by Headers).
const decorated = new WeakSet<Response>();

type HeaderList = ReadonlyArray<readonly [name: string, value: string]>;

/** Set on every answer, whatever it says. */
const ALWAYS: HeaderList = Object.freeze([
  ["x-content-type-options", "nosniff"],
  ["referrer-policy", "no-referrer"],
  ["x-frame-options", "DENY"],
] as const);
const CSP = ["content-security-policy", "frame-ancestors 'none'"] as const;
const HSTS = ["strict-transport-security", "max-age=31536000; includeSubDomains"] as const;
const NO_STORE = ["cache-control", "no-store"] as const;

/**
 * The security headers in the order they are applied, once per setting of `cookies.secure` (HSTS with it). A value
 * the answer already has for `content-security-policy` or `cache-control` is kept (a host route's own choice).
 */
const SECURITY: Readonly<Record<"secure" | "plain", { list: HeaderList; json: Readonly<Record<string, string>> }>> = {
  secure: securityHeaderSet(true),
  plain: securityHeaderSet(false),
};

function securityHeaderSet(secure: boolean) {
  const list: HeaderList = Object.freeze([...ALWAYS, CSP, ...(secure ? [HSTS] : []), NO_STORE]);
  // A JSON answer that had no header before them: the same names and values, lower case, as one plain record.
  const json = Object.freeze(Object.fromEntries([["content-type", "application/json"], ...list]));
  return { list, json };
}

const securityOf = (config: ResolvedConfig) => (config.cookies.secure ? SECURITY.secure : SECURITY.plain);

/** Puts the security headers on `c.res` (the answer as it stands), unless an inner layer already did. */
export function applySecurityHeaders(c: Context, config: ResolvedConfig): void {
  if (decorated.has(c.res)) return;
  const { list } = securityOf(config);
  // A host route's `Response.redirect()` or proxied `fetch()` response has immutable headers: copied first.
  editHeaders(c, (h) => {
    for (const [name, value] of list) {
      if ((name === CSP[0] || name === NO_STORE[0]) && h.has(name)) continue;
      h.set(name, value);
    }
  });
  decorated.add(c.res);
}

const JSON_TYPE = { "Content-Type": "application/json" } as const;

/**
 * A 200 JSON answer of `json` (already serialized), with the security headers and `setCookie` (a `Set-Cookie`
 * value) when given, assigned to `c.res` and returned. When nothing was set for this answer before the route (no
 * `c.header()` of a host middleware, no header on a `c.res` one touched), it is built with its headers as one frozen
 * plain record: `@hono/node-server` writes that with one `writeHead` (no `Headers` object made, validated and copied
 * back), and the layers around skip it (already decorated). Otherwise it is Hono's answer, which takes in what was
 * set (the cookie appended to any set before), and it is decorated like any other answer by the layers around it.
 */
export function jsonAnswer(c: Context, json: string, config: ResolvedConfig, setCookie?: string): Response {
  // Before an answer is assigned, `c.res` is Hono's placeholder: its headers are those set for this answer so far.
  let answer: Response;
  if (c.res.headers.keys().next().done) {
    const headers = securityOf(config).json;
    answer = new Response(json, {
      status: 200,
      headers: setCookie === undefined ? headers : { ...headers, "set-cookie": setCookie },
    });
    decorated.add(answer);
  } else {
    if (setCookie !== undefined) c.header("set-cookie", setCookie, { append: true });
    answer = c.body(json, 200, JSON_TYPE);
  }
  // Replaces the placeholder rather than merging it into a copy of the answer (a copy that Hono would build around
  // a stream of the body): its headers are in the answer already, or there were none.
  c.res = undefined;
  c.res = answer;
  return answer;
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

/** A declared `Content-Length` that is a plain decimal number, else null (absent, chunked, or not a number). */
function declaredLength(header: string | undefined): number | null {
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : null;
}

/**
 * The body's bytes, counted as they are read whatever `Content-Length` says (a caller that builds its own
 * `Request` can declare any length): a 413 as soon as there are more than `max`. `atFirstBytes` runs when the first
 * non-empty chunk arrives and may refuse the request instead (the media type of a body that turned out present).
 * Zero bytes: the body was empty.
 */
async function readCounted(
  body: ReadableStream<Uint8Array>,
  max: number,
  atFirstBytes: () => Response | null = () => null,
): Promise<Uint8Array | Response> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.byteLength === 0) continue;
    const refused = total === 0 ? atFirstBytes() : null;
    total += value.byteLength;
    if (refused !== null || total > max) {
      await reader.cancel().catch(() => undefined);
      return refused ?? tooLarge();
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

/**
 * Whether the JSON text in `bytes` nests objects and arrays deeper than `max`: one pass over the bytes, counting
 * brackets outside strings (no recursion, no parse). UTF-8 never uses the bytes of `"`, `\\`, brackets and braces
 * inside a multi-byte character, so the bytes can be scanned as they are. Text that is not JSON is counted the
 * same way; the parser refuses it afterwards if it is shallow enough to get there.
 */
function nestedDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > max) return true;
    } else if (byte === 0x7d || byte === 0x5d) depth--;
  }
  return false;
}

const tooDeep = () =>
  errorResponse(
    new AuthError(
      "INVALID_REQUEST",
      `The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`,
      {
        details: [{ path: "body", message: `nested more than ${MAX_BODY_DEPTH} levels deep` }],
      },
    ),
  );

/**
 * The answer when reading the body failed: the connection closed mid-upload (`@hono/node-server` and the Node bridge
 * error the stream and abort the request's signal), or the stream a host handed over broke off. The client's doing,
 * not the server's: a 400 recorded like any refused body, with nothing logged (nobody may be there to read it).
 */
const incomplete = () =>
  errorResponse(
    new AuthError("INVALID_REQUEST", "The request body ended before it was complete", {
      details: [{ path: "body", message: "incomplete" }],
    }),
  );

/** `read()`, or the incomplete-body answer when reading fails. */
async function orIncomplete<T>(read: () => Promise<T>): Promise<T | Response> {
  try {
    return await read();
  } catch {
    return incomplete();
  }
}

const tooLarge = () => errorResponse(new AuthError("PAYLOAD_TOO_LARGE", "The request body is larger than 64 KiB"));

const FORM_TYPE = "application/x-www-form-urlencoded";

function mediaType(c: Context): string | undefined {
  return c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
}

function notJson(c: Context, formPath: RegExp | null): Response | null {
  const type = mediaType(c);
  if (type === "application/json") return null;
  if (type === FORM_TYPE && formPath?.test(c.req.path)) return null;
  return errorResponse(new AuthError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json"));
}

/** The requests whose body came as an HTML form (see `bodyGuard`'s `formPath`). */
const formPosted = new WeakSet<Request>();

/** Whether the request's body came as an HTML form (`application/x-www-form-urlencoded`), now read as JSON. */
export function isFormPost(c: Context): boolean {
  return formPosted.has(c.req.raw);
}

/**
 * A form body as the JSON every validator reads: each field a string (a repeated field keeps its last value),
 * `scopes` split on spaces into a list. The request then says `application/json`; `isFormPost` remembers it.
 */
function formAsJson(c: Context, bytes: Uint8Array): Uint8Array {
  const fields: Record<string, unknown> = Object.fromEntries(new URLSearchParams(utf8.decode(bytes)));
  if (typeof fields.scopes === "string") fields.scopes = fields.scopes.split(/\s+/).filter(Boolean);
  const raw = c.req.raw;
  const headers = new Headers(raw.headers);
  for (const name of BODY_HEADERS) headers.delete(name);
  headers.set("content-type", "application/json");
  c.req.raw = copiedFrom(new Request(raw.url, { method: raw.method, headers, signal: raw.signal }), raw);
  formPosted.add(c.req.raw);
  return new TextEncoder().encode(JSON.stringify(fields));
}

// `Request.text()` decodes the same way: UTF-8, a leading BOM dropped, invalid sequences replaced.
const utf8 = new TextDecoder();

/**
 * Hands the counted bytes to everything after the guard through Hono's body cache: `c.req.json()` (the validator),
 * `c.req.text()` and `c.req.arrayBuffer()` answer from them, so no second `Request` (and no second web stream) is
 * built around bytes already read. `c.req.raw` stays the request the runtime handed over, its body consumed.
 */
function keepBody(c: Context, bytes: Uint8Array): void {
  // Hono keeps the promises of the reads it started there (and chains on them); its type names the settled values.
  const cache = c.req.bodyCache as { arrayBuffer?: Promise<ArrayBuffer>; text?: Promise<string> };
  cache.arrayBuffer = Promise.resolve(bytes.buffer as ArrayBuffer);
  cache.text = Promise.resolve(utf8.decode(bytes));
}

/** The parts of a Node `IncomingMessage` the guard looks at (`@hono/node-server` passes it as `env.incoming`). */
interface NodeIncoming {
  httpVersionMajor?: unknown;
  headers?: Record<string, unknown>;
}

/**
 * Whether `raw` is the request `@hono/node-server` made for an HTTP/1 message with the same `Content-Length`: its own
 * lightweight request (not one built with `new Request`), whose `arrayBuffer()` reads the socket's stream directly,
 * without the web stream and the undici `Request` that reading `body` creates. Node's parser frames that body by
 * the declared length, so the length is the byte count. Any other request is read through the counting reader.
 */
function framedByNodeParser(c: Context, raw: Request): boolean {
  const incoming = (c.env as { incoming?: NodeIncoming } | undefined)?.incoming;
  return (
    typeof incoming === "object" &&
    incoming !== null &&
    incoming.httpVersionMajor === 1 &&
    Object.getPrototypeOf(raw) !== Request.prototype &&
    incoming.headers?.["content-length"] === raw.headers.get("content-length")
  );
}

/**
 * A missing or empty body counts as no body (validated as `{}`), whatever its headers say; a present body
 * must be JSON (415 otherwise) and at most 64 KiB (413), counted as it is read, before anything parses it, and
 * nest at most `MAX_BODY_DEPTH` levels (400 `INVALID_REQUEST` naming the limit), before anything walks it.
 * The sub-app's routes read the body from `c.req` (see `keepBody`); host routes behind `auth.middleware` never pass
 * through this guard and read their own bodies. `formPath`: the paths that also take an HTML form
 * (`application/x-www-form-urlencoded`: a plain form's `POST /sign-in/social`, Apple's `form_post` callback); the
 * form is handed on as JSON (see `formAsJson`), under the same limits.
 */
export function bodyGuard(formPath: RegExp | null = null): MiddlewareHandler {
  return async (c, next) => {
    if (!MUTATING.has(c.req.method)) return next();
    const raw = c.req.raw;
    const declared = declaredLength(c.req.header("content-length"));
    let bytes: Uint8Array | Response;
    if (declared !== null && declared > 0) {
      // A declared length over the limit is refused before reading; a smaller one is not believed: the bytes are
      // counted as they arrive, and the parsers then see exactly the bytes that were counted.
      const refused = notJson(c, formPath) ?? (declared > MAX_BODY_BYTES ? tooLarge() : null);
      if (refused !== null) return refused;
      if (framedByNodeParser(c, raw)) {
        // Node's HTTP/1 parser delivers exactly the declared bytes; the count is checked again all the same.
        const buffer = await orIncomplete(() => raw.arrayBuffer());
        if (buffer instanceof Response) return buffer;
        bytes = new Uint8Array(buffer);
        if (bytes.byteLength > MAX_BODY_BYTES) return tooLarge();
      } else {
        const body = raw.body;
        bytes = body === null ? new Uint8Array(0) : await orIncomplete(() => readCounted(body, MAX_BODY_BYTES));
        if (bytes instanceof Response) return bytes;
      }
    } else {
      // No length (a chunked body, Node's stream for a bodiless POST) or a declared 0: the bytes say whether there
      // is a body, and its media type is checked once the first of them arrives.
      const body = raw.body;
      bytes =
        declared === 0 || body === null
          ? new Uint8Array(0)
          : await orIncomplete(() => readCounted(body, MAX_BODY_BYTES, () => notJson(c, formPath)));
      if (bytes instanceof Response) return bytes;
      if (bytes.byteLength === 0) {
        if (raw.body !== null || BODY_HEADERS.some((name) => raw.headers.has(name))) c.req.raw = withoutBody(raw);
        return next();
      }
    }
    if (mediaType(c) === FORM_TYPE) bytes = formAsJson(c, bytes);
    if (nestedDeeperThan(bytes, MAX_BODY_DEPTH)) return tooDeep();
    keepBody(c, bytes);
    return next();
  };
}

/**
 * CSRF: a state-changing request that carries the session cookie must come from a trusted origin
 * (`Origin`, else `Referer`): neither is 403 `MISSING_ORIGIN`, an untrusted or opaque (`null`) one 403
 * `INVALID_ORIGIN`. Bearer- or API-key-only requests carry no ambient credential and skip it. `exempt`: paths that
 * a provider POSTs to cross-site (Apple's `form_post` callback), whose own defence is the flow's state: bound to the
 * browser's state cookie, single-use, and nothing there acts on the session cookie.
 */
export function csrfProtection(config: ResolvedConfig, exempt: RegExp | null = null): MiddlewareHandler {
  return async (c, next) => (exempt?.test(c.req.path) ? next() : (csrfRefusal(c, config) ?? next()));
}

/** The CSRF check of `csrfProtection` as a function: the 403 answer for this request, or null to go on. */
export function csrfRefusal(c: Context, config: ResolvedConfig): Response | null {
  const refused = originRefusal(c.req.method, (name) => c.req.header(name), config);
  return refused === null ? null : errorResponse(refused);
}

/**
 * The CSRF check itself, on a method and a header reader, so the host guards (`requestSession`, `nodeSession`)
 * apply exactly what `auth.middleware` applies: the 403 `AuthError` for this request, or null to go on.
 */
export function originRefusal(
  method: string,
  header: (name: string) => string | undefined,
  config: ResolvedConfig,
): AuthError | null {
  if (!MUTATING.has(method.toUpperCase())) return null;
  if (readCookie(header("cookie"), config.cookies.name) === null) return null;
  const claimed = header("origin") ?? header("referer");
  if (claimed === undefined || claimed === "") {
    // Browsers send Origin on every cross-origin and same-origin POST; its absence means a non-browser client
    // (curl, a server) that carries the cookie, which should use Bearer instead, or a stripped header.
    return new AuthError(
      "MISSING_ORIGIN",
      "A request carrying the session cookie must send an Origin (or Referer) header; clients without one should authenticate with Authorization: Bearer",
    );
  }
  const origin = originOf(claimed);
  // Fetch Metadata: a browser that says the request is cross-site is believed even when a Referer names a trusted
  // page (Origin is what a browser sends on a POST; a trusted cross-site front end sends its own Origin).
  const crossSite = header("sec-fetch-site") === "cross-site" && header("origin") === undefined;
  if (origin === null || !config.trustedOrigins.includes(origin) || crossSite)
    return new AuthError("INVALID_ORIGIN", "The request origin is not trusted");
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
