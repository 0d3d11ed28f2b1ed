import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AuthError, type ResolvedConfig } from "@latchkey/core";
import { errorResponse } from "../http/errors.ts";
import { readCookie } from "../http/cookies.ts";

export const MAX_BODY_BYTES = 64 * 1024;

// Responses that already carry the headers: the host's `auth.middleware` and the mounted sub-app both add them, and
// the outer layer need not set the same six values again on the same response (each set is validated by Headers).
const decorated = new WeakSet<Response>();

/** Security headers on every response, errors and 404s included. */
export function securityHeaders(config: ResolvedConfig): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (decorated.has(c.res)) return;
    decorated.add(c.res);
    const h = c.res.headers;
    h.set("x-content-type-options", "nosniff");
    h.set("referrer-policy", "no-referrer");
    h.set("x-frame-options", "DENY");
    if (!h.has("content-security-policy")) h.set("content-security-policy", "frame-ancestors 'none'");
    if (config.cookies.secure) h.set("strict-transport-security", "max-age=31536000; includeSubDomains");
    if (!h.has("cache-control")) h.set("cache-control", "no-store");
  };
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function hasBody(req: Request): boolean {
  const length = req.headers.get("content-length");
  if (length !== null) return length !== "0";
  return req.headers.has("transfer-encoding") || req.body !== null;
}

/** JSON only (415 otherwise) and at most 64 KiB (413), before anything parses the body. */
export function bodyGuard(): MiddlewareHandler {
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: () => errorResponse(new AuthError("PAYLOAD_TOO_LARGE", "The request body is larger than 64 KiB")) });
  return async (c, next) => {
    if (!MUTATING.has(c.req.method) || !hasBody(c.req.raw)) return next();
    const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") return errorResponse(new AuthError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json"));
    // A declared length is enforced by the runtime's HTTP parser, so checking it is enough; only streamed
    // (chunked) bodies need the counting reader, which also forces Node's adapter to build a full Request.
    const declared = c.req.header("content-length");
    if (declared !== undefined && /^\d+$/.test(declared)) {
      if (Number(declared) > MAX_BODY_BYTES) return errorResponse(new AuthError("PAYLOAD_TOO_LARGE", "The request body is larger than 64 KiB"));
      return next();
    }
    return limit(c, next);
  };
}

function originOf(value: string | undefined): string | null {
  if (!value || value === "null") return null;
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/**
 * CSRF: a state-changing request that carries the session cookie must come from a trusted origin
 * (`Origin`, else `Referer`). Bearer- or API-key-only requests carry no ambient credential and skip it.
 */
export function csrfProtection(config: ResolvedConfig): MiddlewareHandler {
  return async (c, next) => {
    if (!MUTATING.has(c.req.method)) return next();
    if (readCookie(c.req.header("cookie"), config.cookies.name) === null) return next();
    const origin = originOf(c.req.header("origin") ?? c.req.header("referer"));
    if (origin === null || !config.trustedOrigins.includes(origin)) {
      return errorResponse(new AuthError("INVALID_ORIGIN", "The request origin is not trusted"));
    }
    return next();
  };
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
