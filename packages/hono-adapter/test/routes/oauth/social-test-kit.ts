import { afterAll, beforeAll, expect } from "vitest";
import { oauth, oidc, type OAuthOptions, type OAuthProvider } from "@latchkey/core";
import { BASE_URL, createTestAuth, type TestAuth } from "../../test-auth.ts";
import {
  authorizeAt,
  CLIENT_ID,
  CLIENT_SECRET,
  startTestOidcProvider,
  type TestOidcProvider,
} from "@latchkey/test-support/oidc-provider";

export const PROVIDER = "example-id";
export const REDIRECT_URI = `${BASE_URL}/auth/callback/${PROVIDER}`;

let ipSeq = 0;
/** A fresh client address per request, so per-IP limits stay out of the way. */
export const ip = () => `198.51.${Math.floor(ipSeq / 250) % 250}.${(ipSeq++ % 250) + 1}`;

/** The test provider as an `oidc()` provider of Latchkey. */
export function exampleId(idp: TestOidcProvider, over: Partial<Parameters<typeof oidc>[0]> = {}): OAuthProvider {
  return oidc({ id: PROVIDER, issuer: idp.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...over });
}

/** An auth with `oauth()` over the test provider, its clock at the real time (the provider's tokens use it). */
export function socialAuth(
  idp: TestOidcProvider,
  options: Partial<OAuthOptions> = {},
  extra: Parameters<typeof createTestAuth>[0] = {},
): TestAuth {
  const t = createTestAuth({
    ...extra,
    plugins: [oauth({ providers: [exampleId(idp)], ...options }), ...(extra.plugins ?? [])],
  });
  t.clock.set(Date.now());
  return t;
}

/** The `name=value` of the first Set-Cookie whose name ends with `suffix`. */
export function cookieOf(res: Response, suffix: string): string {
  const line = res.headers.getSetCookie().find((l) => (l.split("=")[0] as string).endsWith(suffix));
  if (!line) throw new Error(`no ${suffix} cookie`);
  return line.split(";")[0] as string;
}

/** Starts a sign-in: the provider URL and the browser's state cookie. */
export async function startFlow(
  t: TestAuth,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  path = "/sign-in/social",
): Promise<{ url: string; stateCookie: string }> {
  const res = await t.request("POST", path, { body: { provider: PROVIDER, ...body }, ip: ip(), headers });
  expect(res.status, await res.clone().text()).toBe(200);
  const { url } = (await res.json()) as { url: string };
  return { url, stateCookie: cookieOf(res, "latchkey_oauth_state") };
}

/** Delivers the provider's redirect to Latchkey's callback, as the browser would (with its cookies). */
export function deliver(t: TestAuth, callback: URL, cookie: string | null, provider = PROVIDER): Promise<Response> {
  return t.request("GET", `/callback/${provider}${callback.search}`, {
    ip: ip(),
    headers: cookie ? { cookie } : {},
  });
}

/** The whole flow: start, the provider's login and consent, the callback. */
export async function signInWithProvider(
  t: TestAuth,
  idp: TestOidcProvider,
  identity: Parameters<TestOidcProvider["login"]>[0],
  body: Record<string, unknown> = {},
  /** Other cookies the browser holds (`name=value`), sent with the callback. */
  cookies: string[] = [],
): Promise<Response> {
  const { url, stateCookie } = await startFlow(t, body);
  idp.login(identity);
  return deliver(t, await authorizeAt(url), [stateCookie, ...cookies].join("; "));
}

/** The error code a failed flow's redirect carries (`?error=`), or null. */
export function errorOf(res: Response): string | null {
  expect(res.status).toBe(302);
  return new URL(res.headers.get("location")!).searchParams.get("error");
}

// Per-file state (a test file's provider, its counter) lives in each file's call of these: the hono-adapter project
// shares one module graph between its files (`isolate: false`).

/**
 * Starts a test OpenID provider before the calling file's tests and closes it after them. Call it at the top of a
 * test file: the hooks are that file's.
 *
 * @example
 * let idp: TestOidcProvider;
 * oidcProviderForFile((started) => (idp = started));
 */
export function oidcProviderForFile(set: (idp: TestOidcProvider) => void): void {
  let idp: TestOidcProvider | undefined;
  beforeAll(async () => {
    idp = await startTestOidcProvider([REDIRECT_URI]);
    set(idp);
  });
  afterAll(async () => {
    await idp?.close();
  });
}

/**
 * A maker of provider users for one test file (its own counter): a verified `<local>-…@example.com` with a fresh
 * subject, plus `fields`.
 *
 * @example
 * const person = personMaker("person", { name: "Ada Lovelace" });
 * const who = person({ email_verified: false });
 */
export function personMaker(local: string, fields: { name?: string } = {}) {
  let seq = 0;
  return (over: { email_verified?: boolean; email?: string } = {}) => {
    const n = `${Date.now().toString(36)}${seq++}`;
    return { sub: `sub-${n}`, email: `${local}-${n}@example.com`, email_verified: true, ...fields, ...over };
  };
}

export async function userCount(t: TestAuth, email: string) {
  return (await t.store.users.findByEmail(email)) ? 1 : 0;
}

/** The failure redirect: to the error callback, no session cookie, no user. */
export async function refused(t: TestAuth, res: Response, code: string, email: string) {
  expect(errorOf(res)).toBe(code);
  expect(res.headers.get("location")).toMatch(/^https:\/\/app\.example\//);
  expect(res.headers.getSetCookie().some((l) => l.startsWith(t.auth.core.config.cookies.name))).toBe(false);
  expect(await userCount(t, email)).toBe(0);
}
