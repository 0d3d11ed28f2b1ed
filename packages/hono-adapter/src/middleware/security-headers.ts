import type { Context, MiddlewareHandler } from "hono";
import type { ResolvedConfig } from "@latchkey/core";
import { editHeaders } from "../http/host-response.ts";

// The security headers every answer carries, and the JSON answer that has them from the start.

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
