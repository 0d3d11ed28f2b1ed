// What the in-process micro benches share: a library's `(Request) => Response` handler driven as a browser would,
// same-origin on ORIGIN, cookies carried by hand.

/** The origin every micro bench serves both libraries on. */
export const ORIGIN = "http://localhost:3000";

/** A library's WinterCG handler. */
export type Handler = (request: Request) => Promise<Response>;

/** `name=value` of every cookie a response sets (what a browser sends back); cleared ones are left out. */
export const cookiesOf = (res: Response): string[] =>
  res.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .filter((pair) => !pair.endsWith("="));

/**
 * A `send` for the routes under `basePath` on ORIGIN (`"/auth"` where both libraries mount there): one request to
 * a path, with a JSON body when given and the cookies a browser would send.
 */
export function sender(basePath: string) {
  return (handler: Handler, method: string, path: string, body?: unknown, cookies: string[] = []) => {
    const headers: Record<string, string> = { origin: ORIGIN };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (cookies.length > 0) headers.cookie = cookies.join("; ");
    const init = { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    return handler(new Request(`${ORIGIN}${basePath}${path}`, init));
  };
}

/** The answer's JSON (null when empty); throws with the status and the start of the body when it is not 2xx. */
export async function expectOk(res: Response, what: string): Promise<unknown> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what} answered ${res.status}: ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}
