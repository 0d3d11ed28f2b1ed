import type { Span } from "@opentelemetry/api";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { untracedHere, withSpan, type Telemetry, type TelemetryHandle } from "./otel.ts";

/** Sign-in routes and the method each counts under in `latchkey.sign_ins`. */
const SIGN_IN_ROUTES: Record<string, string> = {
  "/sign-in/email": "password",
  "/sign-in/email-otp": "email-otp",
};

/** The methods HTTP defines (RFC 9110 and PATCH): the only values `http.request.method` takes. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]);

/**
 * The request's method as a bounded label: a known method, else `_OTHER` (OpenTelemetry's value for methods it does
 * not know). Deno and Bun pass any token through as the method, so a client inventing 200 methods would otherwise
 * create 200 metric series.
 */
function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : "_OTHER";
}

/** The route template that answered (`/auth/sign-in/email`), or the mount's catch-all for unknown paths. */
function answeringRoute(c: Context): string {
  const routes = matchedRoutes(c);
  return routes[c.req.routeIndex]?.path ?? routes.at(-1)?.path ?? "";
}

/** The `code` of a JSON error answer (`{ code, message }`); null for other answers. */
async function errorCode(res: Response): Promise<string | null> {
  if (res.status < 400 || !res.headers.get("content-type")?.includes("application/json")) return null;
  try {
    const body = (await res.clone().json()) as { code?: unknown };
    return typeof body.code === "string" ? body.code : null;
  } catch {
    return null;
  }
}

/**
 * One span per auth request, `latchkey POST /sign-in/email` (the route relative to the mount; `http.route` is the
 * full template), with the answer's status and error code; store calls made meanwhile are its children. Records the
 * request-duration histogram, sign-in outcomes and rate-limit refusals. Does nothing until `@opentelemetry/api` is loaded, and
 * nothing at all without it.
 */
export function requestTelemetry(
  handle: TelemetryHandle,
  mountPrefix: (routePath: string) => string,
): MiddlewareHandler {
  return async (c, next) => {
    const telemetry = handle.current ?? (await handle.ready);
    if (!telemetry) return next();
    // Neither a tracer provider (and no span active) nor a meter provider: nothing would be recorded, so nothing
    // is computed, not even the span's name and options (what `withSpan` would decide, asked before building them).
    if (!telemetry.metered && untracedHere(telemetry)) return next();
    const started = performance.now();
    const { api } = telemetry;
    const method = methodLabel(c.req.method);
    await withSpan(
      telemetry,
      `latchkey ${method}`,
      { kind: api.SpanKind.SERVER, attributes: { "http.request.method": method } },
      async (span) => {
        // Neither an SDK's tracer nor its meter: nothing would be recorded, so nothing is computed.
        if (!span && !telemetry.metered) return next();
        const prefix = mountPrefix(c.req.routePath);
        try {
          await next();
        } finally {
          await finish(telemetry, c, span, prefix, started);
        }
      },
    );
  };
}

async function finish(
  telemetry: Telemetry,
  c: Context,
  span: Span | null,
  prefix: string,
  started: number,
): Promise<void> {
  const template = answeringRoute(c);
  const matched = !template.endsWith("*");
  const relative = matched ? template.slice(prefix.length) || "/" : null;
  const status = c.res.status;
  const code = await errorCode(c.res);
  const httpMethod = methodLabel(c.req.method);
  const attributes: Record<string, string | number> = {
    "http.request.method": httpMethod,
    "http.route": template,
    "http.response.status_code": status,
  };
  if (code) attributes["latchkey.error.code"] = code;
  if (span) {
    span.updateName(relative ? `latchkey ${httpMethod} ${relative}` : `latchkey ${httpMethod}`);
    span.setAttributes(attributes);
    if (status >= 500) span.setStatus({ code: telemetry.api.SpanStatusCode.ERROR, message: code ?? String(status) });
    span.end();
  }
  if (!telemetry.metered) return;

  telemetry.requestDuration.record((performance.now() - started) / 1000, attributes);
  // 429 is also ACCOUNT_LOCKED (counted as a lockout): only the rate limiter's refusals count here.
  if (code === "RATE_LIMITED") telemetry.rateLimited.add(1, { "http.route": template });
  const method = relative ? SIGN_IN_ROUTES[relative] : undefined;
  if (method && c.req.method === "POST")
    telemetry.signIns.add(1, { "latchkey.sign_in.method": method, "latchkey.outcome": code ?? "success" });
}
