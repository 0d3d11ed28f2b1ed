import { OPERATIONS } from "./generated/api.ts";
import type { ClientOptions } from "./client-options.ts";
import { SECOND_STEPS, SIGN_INS } from "./call-kinds.ts";
import type { CallOptions, ErrorCode, Input, LatchkeyError, OperationId } from "./types.ts";

function isErrorBody(value: unknown): value is { code: ErrorCode; message: string; details?: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { code?: unknown }).code === "string" &&
    typeof (value as { message?: unknown }).message === "string"
  );
}

/** What `buildRequest` needs from the client: where, how it authenticates, and the extra headers. */
export interface RequestContext {
  base: string;
  mode: "cookie" | "bearer";
  token: string | null;
  /** Bearer mode: the device token a password sign-in sends (`latchkey-device`). */
  deviceToken: string | null;
  /** Bearer mode: the trusted-device token sign-ins send (`latchkey-trusted-device`). */
  trustedDeviceToken: string | null;
  /** Bearer mode: the pending two-factor sign-in the second step finishes (`latchkey-two-factor`). */
  twoFactorToken: string | null;
  headers: ClientOptions["headers"];
}

/** The URL (query string for GETs) and init (headers, JSON body, credentials mode) of one operation's request. */
function buildRequest<K extends OperationId>(
  ctx: RequestContext,
  operationId: K,
  input: Input<K> | undefined,
  callOptions: CallOptions,
): { url: string; init: RequestInit } {
  const op = OPERATIONS[operationId];
  // Path parameters (`/passkey/{id}`) come out of the input; the rest is the body or the query.
  let fields = input as Record<string, unknown> | undefined;
  let path: string = op.path;
  if (path.includes("{")) {
    const rest: Record<string, unknown> = { ...fields };
    path = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = rest[name];
      delete rest[name];
      return encodeURIComponent(String(value ?? ""));
    });
    fields = rest;
  }
  let url = `${ctx.base}${path}`;
  const headers: Record<string, string> = {
    accept: "application/json",
    ...(typeof ctx.headers === "function" ? ctx.headers() : ctx.headers),
    ...callOptions.headers,
  };
  let body: string | undefined;
  if (op.input === "body") {
    body = JSON.stringify(fields ?? {});
    headers["content-type"] = "application/json";
  } else if (op.input === "query" && fields) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(fields))
      if (value !== undefined && value !== null) query.set(name, String(value));
    const text = query.toString();
    if (text) url += `?${text}`;
  }
  if (ctx.mode === "bearer") {
    // Asks sign-in answers for the session token (a cookie-mode page never receives it).
    headers["latchkey-credentials"] = "bearer";
    if (ctx.token) headers.authorization = `Bearer ${ctx.token}`;
    // A password sign-in from a known device is not held by the anonymous limits (docs/security.md).
    if (ctx.deviceToken && operationId === "signInEmail") headers["latchkey-device"] = ctx.deviceToken;
    if (ctx.trustedDeviceToken && SIGN_INS.has(operationId))
      headers["latchkey-trusted-device"] = ctx.trustedDeviceToken;
    if (ctx.twoFactorToken && SECOND_STEPS.has(operationId)) headers["latchkey-two-factor"] = ctx.twoFactorToken;
  }
  const init: RequestInit = { method: op.method, headers, credentials: ctx.mode === "cookie" ? "include" : "omit" };
  if (body !== undefined) init.body = body;
  if (callOptions.signal) init.signal = callOptions.signal;
  return { url, init };
}

/** Sends; a 503 with `Retry-After` (when `retry`) is sent once more after that wait, and the second answer stands. */
export async function sendHonouringRetryAfter(
  send: () => Promise<Response>,
  retry: boolean,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const response = await send();
  const wait = response.status === 503 && retry ? retryAfterSeconds(response) : null;
  if (wait === null) return response;
  await response.body?.cancel();
  await sleep(wait * 1000, signal);
  return send();
}

/** The seconds a 503's `Retry-After` asks for (a number of seconds, at most 30), or null: then no retry. */
function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get("retry-after")?.trim();
  if (!value || !/^\d+$/.test(value)) return null;
  const seconds = Number(value);
  return seconds <= 30 ? seconds : null;
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** The result of a fetch that threw (offline, DNS, CORS, aborted). */
export function networkError(error: unknown): { data: null; error: LatchkeyError; response: null } {
  return {
    data: null,
    error: {
      code: "NETWORK_ERROR",
      message: error instanceof Error ? error.message : "The request failed",
      status: 0,
    },
    response: null,
  };
}

/** The JSON payload of a 2xx answer, or the `{ data: null, error }` result of any other (or of a non-JSON body). */
export async function readAnswer(
  response: Response,
): Promise<{ payload: unknown } | { error: { data: null; error: LatchkeyError; response: Response } }> {
  let payload: unknown = null;
  const text = await response.text();
  try {
    payload = text ? JSON.parse(text) : null;
  } catch {
    payload = undefined;
  }
  if (!response.ok) {
    const error: LatchkeyError = isErrorBody(payload)
      ? {
          code: payload.code,
          message: payload.message,
          status: response.status,
          ...(payload.details === undefined ? {} : { details: payload.details }),
        }
      : {
          code: "INTERNAL_ERROR",
          message: `The server answered ${response.status} without a Latchkey error body`,
          status: response.status,
        };
    return { error: { data: null, error, response } };
  }
  if (payload === undefined) {
    return {
      error: {
        data: null,
        error: { code: "INTERNAL_ERROR", message: "The answer was not JSON", status: response.status },
        response,
      },
    };
  }
  return { payload };
}

/** One operation's `Request` (see buildRequest). */
export function buildFetchRequest<K extends OperationId>(
  ctx: RequestContext,
  operationId: K,
  input: Input<K> | undefined,
  callOptions: CallOptions,
): Request {
  const { url, init } = buildRequest(ctx, operationId, input, callOptions);
  return new Request(url, init);
}
