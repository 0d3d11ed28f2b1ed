import type { IncomingMessage, ServerResponse } from "node:http";

/** Longest path written to the log (a client can send any URL). */
const MAX_PATH = 200;

/**
 * One line per request. Only the method, the path without its query string (reset and verification links carry
 * their token in the query), the status and the duration: never headers, cookies, bodies or the client's address,
 * so no token, key, code or password can reach the log. Production gets a JSON line for log collectors.
 */
export function requestLogLine(req: IncomingMessage, res: ServerResponse, ms: number, json: boolean): string {
  const raw = req.url ?? "/";
  const query = raw.indexOf("?");
  const path = (query === -1 ? raw : raw.slice(0, query)).slice(0, MAX_PATH);
  const method = (req.method ?? "?").slice(0, 16);
  const status = res.statusCode;
  const duration = Math.round(ms * 10) / 10;
  // Closed before the answer was complete: the client went away or the drain timeout cut the connection.
  const aborted = !res.writableFinished;
  if (json)
    return JSON.stringify({
      time: new Date().toISOString(),
      method,
      path,
      status,
      ms: duration,
      ...(aborted ? { aborted: true } : {}),
    });
  return `${method} ${path} ${status} ${duration}ms${aborted ? " (aborted)" : ""}`;
}
