// What the social sign-in and attack tests share: a test OpenID provider per test file, a maker of provider users,
// and what a refused callback must look like. Per-file state (the provider, the counter) lives in each file's call:
// the hono-adapter project shares one module graph between its files (`isolate: false`).
import { afterAll, beforeAll, expect } from "vitest";
import { startTestOidcProvider, type TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import { errorOf, REDIRECT_URI } from "../../../test/routes/oauth/social-test-kit.ts";
import type { TestAuth } from "../../../test/test-auth.ts";

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
