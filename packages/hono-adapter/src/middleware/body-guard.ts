import type { Context, MiddlewareHandler } from "hono";
import { AuthError } from "@latchkey/core";
import { copiedFrom } from "../http/client-ip.ts";
import { errorResponse } from "../http/errors.ts";

import { MUTATING_METHODS } from "./security.ts";

// What a state-changing request's body may be: its size, its media type, its depth (and a form posted as JSON).

const MAX_BODY_BYTES = 64 * 1024;
/**
 * The deepest a body may nest objects and arrays (`{}` is 1 level, `{"a":{}}` 2). Everything after the parser
 * that walks a value (validation, the NUL check, metadata serialization, the stores) recurses, so a body is refused
 * past this depth before any of it runs: JSON.parse alone takes 10,000 levels, the code after it does not.
 */
export const MAX_BODY_DEPTH = 32;

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
