import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { copyInto, npmProject, type Packs } from "./projects.ts";

/**
 * A copy of `examples/<name>` in `dir`, installed with npm from its own package.json: every dependency it names,
 * Latchkey's from the packed tarballs and the rest from the registry (so the example's manifest is what is tested).
 */
export async function exampleProject(root: string, name: string, dir: string, entries: string[], packs: Packs) {
  copyInto(join(root, "examples", name), dir, entries);
  const manifest = JSON.parse(readFileSync(join(root, "examples", name, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const all = { ...manifest.dependencies, ...manifest.devDependencies };
  const latchkey = Object.keys(all).filter((n) => n.startsWith("@latchkey/"));
  const registry = Object.fromEntries(Object.entries(all).filter(([n]) => !n.startsWith("@latchkey/")));
  await npmProject(dir, packs, latchkey, registry);
}

const json = (base: string, body: unknown, cookie?: string) => ({
  method: "POST",
  headers: { "content-type": "application/json", origin: base, ...(cookie ? { cookie } : {}) },
  body: JSON.stringify(body),
});

/**
 * The framework half of an integration's journey: a page guarded by the framework's locals (`/dashboard`, which
 * redirects signed-out visitors with 303 to `/`) and a JSON route (`/me`, 401 without a session) see the session
 * a sign-up at `/auth` made; after sign-out at `/auth` both see nobody, and Latchkey has no session for the cookie.
 */
export async function expectLocalsJourney(base: string, label: string): Promise<void> {
  const anonymous = await fetch(`${base}/dashboard`, { redirect: "manual" });
  expect(anonymous.status).toBe(303);
  expect(anonymous.headers.get("location")).toBe("/");

  const email = `locals-${label}@consumer.example`;
  const up = await fetch(`${base}/auth/sign-up/email`, json(base, { email, password: "correct horse battery" }));
  expect(up.status, await up.clone().text()).toBe(200);
  const { session } = (await up.json()) as { session: { id: string } };
  const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
  // A built server is production whatever its URL (issue 49 item 2): the Secure, __Host- cookie.
  expect(cookie).toMatch(/^__Host-latchkey\.session=/);
  expect(up.headers.get("set-cookie")).toMatch(/; Secure/);

  const page = await fetch(`${base}/dashboard`, { headers: { cookie }, redirect: "manual" });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(`Dashboard of ${email}`);
  const me = await fetch(`${base}/me`, { headers: { cookie } });
  expect(await me.json()).toEqual({ email, sessionId: session.id });

  const out = await fetch(`${base}/auth/sign-out`, json(base, {}, cookie));
  expect(out.status, await out.clone().text()).toBe(200);
  expect(await (await fetch(`${base}/auth/get-session`, { headers: { cookie } })).json()).toBeNull();
  const after = await fetch(`${base}/dashboard`, { headers: { cookie }, redirect: "manual" });
  expect(after.status).toBe(303);
  const meAfter = await fetch(`${base}/me`, { headers: { cookie } });
  expect(meAfter.status).toBe(401);
  expect(await meAfter.json()).toEqual({ code: "INVALID_CREDENTIALS", message: "Sign in first" });
}
