import { HTTPException } from "hono/http-exception";
import { AuthError, describeError, type Logger } from "@latchkey/core";
import { consoleLogger } from "@latchkey/core/internal";

export { describeError };
import { ERROR_STATUS } from "./error-status.ts";

/** The error body every Latchkey response uses. */
export interface ErrorBody {
  code: string;
  message: string;
  details?: unknown;
}

const defaultLogger = consoleLogger();

/**
 * Turns any thrown value into the JSON error response. Unknown errors become a bare 500, logged (described, never
 * the request) through `logger`: `createAuth({ logger })` where the auth is at hand, else the console.
 */
export function errorResponse(error: unknown, logger: Logger = defaultLogger): Response {
  let status: number;
  let body: ErrorBody;
  const headers = new Headers({ "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  if (error instanceof AuthError) {
    status = ERROR_STATUS[error.code] ?? 500;
    body = { code: error.code, message: error.message };
    if (error.details !== undefined) body.details = error.details;
    if (error.retryAfter !== undefined) headers.set("retry-after", String(error.retryAfter));
    if (status === 500) logger.error({ code: error.code, error: describeError(error) }, "internal error");
  } else if (error instanceof HTTPException && error.status < 500) {
    // Hono's validator throws these for malformed JSON bodies.
    status = error.status === 413 ? 413 : 400;
    body =
      status === 413
        ? { code: "PAYLOAD_TOO_LARGE", message: "The request body is too large" }
        : {
            code: "INVALID_REQUEST",
            message: "The request body is not valid JSON",
            details: [{ path: "body", message: "not valid JSON" }],
          };
  } else {
    logger.error({ error: describeError(error) }, "unexpected error");
    return internalErrorResponse();
  }
  return new Response(JSON.stringify(body), { status, headers });
}

/** The bare JSON 500: `INTERNAL_ERROR`, no message of the error, no stack. Logging is the caller's. */
export function internalErrorResponse(): Response {
  return new Response(JSON.stringify({ code: "INTERNAL_ERROR", message: "Something went wrong" } satisfies ErrorBody), {
    status: 500,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}
