import { BENCH_PROVIDER_ID, CALLBACK_PATH } from "../servers/social-client.ts";
import type { PoolItem } from "./pool.ts";

/**
 * The flows of the `social-callback` scenario, made by the load generator before a window (not timed): the library
 * starts each (`POST /auth/sign-in/social`: the authorization URL and the state cookie), the provider is walked as
 * a browser would (authorization request, the programmatic login and consent, the redirect back), and what is left
 * is the measured request: the callback with its code and state, and the browser's cookie. Both libraries take the
 * same route shape (Better Auth's `genericOAuth` registers its providers as social providers: `POST /sign-in/social`
 * and `GET /callback/:id`).
 */

/** Where both libraries send the browser once signed in (a path on the app: each resolves it on its own origin). */
const SUCCESS_PATH = "/done";

/** The subjects the flows sign in, each signed in once before the first window (returning users). */
export const subjectOf = (index: number, subjects: number) => `social-user-${index % subjects}`;

/** `name=value` of every cookie a response sets, joined as a browser would send them back. */
function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .filter((pair) => pair.includes("=") && !pair.endsWith("="))
    .join("; ");
}

/** Starts a flow on the library: the provider's authorization URL and the state cookie it set. */
async function startFlow(baseUrl: string): Promise<{ url: string; cookie: string }> {
  const response = await fetch(`${baseUrl}/auth/sign-in/social`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ provider: BENCH_PROVIDER_ID, callbackURL: SUCCESS_PATH }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST /sign-in/social answered ${response.status}: ${text}`);
  const { url } = JSON.parse(text) as { url?: string };
  const cookie = cookiesOf(response);
  if (!url || !cookie) throw new Error("POST /sign-in/social answered no URL or no state cookie");
  return { url, cookie };
}

/**
 * Walks the provider as the browser, signing in `sub`: follows its redirects with its cookies, naming the subject on
 * the interaction page, until a redirect leaves the provider: the callback URL (`?code=&state=&iss=`).
 */
async function walkProvider(authorizationUrl: string, sub: string): Promise<URL> {
  const jar = new Map<string, string>();
  let next = new URL(authorizationUrl);
  const origin = next.origin;
  for (let hop = 0; hop < 10; hop += 1) {
    if (next.pathname.startsWith("/interaction/")) next.searchParams.set("sub", sub);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const response = await fetch(next, { redirect: "manual", headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(";")[0] ?? "";
      const eq = pair.indexOf("=");
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = response.headers.get("location");
    const body = await response.text();
    if (!location)
      throw new Error(`the provider answered ${response.status} without a redirect: ${body.slice(0, 200)}`);
    next = new URL(location, next);
    if (next.origin !== origin) return next;
  }
  throw new Error("too many redirects at the provider");
}

/** One flow ready for its callback: the cookie the browser holds and the callback's path with its query. */
async function socialFlow(baseUrl: string, sub: string): Promise<PoolItem> {
  const { url, cookie } = await startFlow(baseUrl);
  const back = await walkProvider(url, sub);
  if (back.pathname !== CALLBACK_PATH || !back.searchParams.get("code"))
    throw new Error(
      `the provider sent the browser to ${back.pathname} without a code (${back.searchParams.get("error")})`,
    );
  return { credential: cookie, path: `${back.pathname}${back.search}` };
}

/**
 * `count` flows on one server, `concurrency` at a time, signing in the subjects in turn (flow `i` signs in
 * `subjectOf(first + i)`), in the order they were asked for.
 */
export async function socialFlows(
  baseUrl: string,
  count: number,
  subjects: number,
  { first = 0, concurrency = 8 }: { first?: number; concurrency?: number } = {},
): Promise<PoolItem[]> {
  const items: PoolItem[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      items[index] = await socialFlow(baseUrl, subjectOf(first + index, subjects));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return items;
}

/** Whether a callback's answer is a finished sign-in: a redirect to the success path and a session cookie set. */
export function signedInByCallback(status: number, headers: Record<string, unknown>): boolean {
  if (status !== 302) return false;
  const header = (name: string) => {
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
    const value = key === undefined ? undefined : headers[key];
    return Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
  };
  const location = header("location")[0] ?? "";
  if (location.includes("error") || !new URL(location, "http://x").pathname.endsWith(SUCCESS_PATH)) return false;
  // Latchkey's `latchkey_session`, Better Auth's `better-auth.session_token`: set, not cleared.
  return header("set-cookie").some((line) => /^[^=;]*session[^=;]*=[^;]+/.test(line));
}

/** How many people the flows sign in, in turn (each signed in once before the first window: returning users). */
export const SOCIAL_SUBJECTS = 32;

/** Delivers one flow's callback as the browser would (no redirect followed): its status and headers. */
export async function deliverCallback(
  baseUrl: string,
  flow: PoolItem,
): Promise<{ status: number; headers: Record<string, string | string[]> }> {
  const response = await fetch(`${baseUrl}${flow.path ?? "/"}`, {
    redirect: "manual",
    headers: { cookie: flow.credential },
  });
  await response.arrayBuffer();
  return {
    status: response.status,
    headers: { location: response.headers.get("location") ?? "", "set-cookie": response.headers.getSetCookie() },
  };
}

/**
 * Signs in each of the `subjects` once (a first sign-in: the user and its linked account are created), so that every
 * measured callback is a returning user's on both sides.
 */
export async function signInSubjects(baseUrl: string, subjects: number): Promise<void> {
  for (const flow of await socialFlows(baseUrl, subjects, subjects)) {
    const answer = await deliverCallback(baseUrl, flow);
    if (!signedInByCallback(answer.status, answer.headers))
      throw new Error(`a first social sign-in answered ${answer.status} to ${JSON.stringify(answer.headers.location)}`);
  }
}
