// What the browser suites on the IP-address origin share (browser-sign-in.test.ts, browser-account.test.ts,
// browser-sessions.test.ts): the demo web app in a real Chromium (Debian's /usr/bin/chromium through playwright-core),
// every flow against the running demo server (`src/server.ts` on an embedded libSQL file, the pages Vite built), with
// real cookies and real Origin headers, plus a page on a second loopback origin that signs in with CORS and
// credentials. Effects are checked in the demo's own database. Codes and links come from the server's console, as a
// developer reads them. Passkeys need a host name rather than this suite's IP address: passkey.browser.test.ts.
// Each suite file calls setUpBrowserDemo() once at its top: its own demo server, second origin and Chromium profile.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { FullStore } from "@latchkey/core";
import {
  ensurePagesBuilt,
  launchChromiumProfile,
  nextEmail as nextEmailOf,
  PASSWORD,
  poll,
  type RunningDemo,
  signUpInto,
  startDemo,
} from "./browser-harness.ts";
import { WEB_ROOT, webPages } from "./static.ts";

export const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
export const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

export let api = "";
export let spaOrigin = "";
let demo: RunningDemo;
let spa: { close(callback?: () => void): unknown };
export let context: BrowserContext;
export let page: Page;
export let store: FullStore;
let work = "";

/** Runs `action`, then waits for the next email to `to` and returns its text. */
export const nextEmail = (to: string, action: () => Promise<unknown>) => nextEmailOf(demo, to, action);

export const codeIn = (email: string) => /is (\d{6})\./.exec(email)?.[1] ?? "";
export const linkIn = (email: string) => /(http:\/\/\S+)/.exec(email)?.[1] ?? "";
export const form = (name: string): Locator => page.getByRole("form", { name });
export const who = () => page.getByTestId("who");

export async function submit(name: string, fields: Record<string, string>, button?: string): Promise<void> {
  const f = form(name);
  for (const [label, value] of Object.entries(fields)) await f.getByLabel(label, { exact: true }).fill(value);
  await (button ? f.getByRole("button", { name: button }) : f.getByRole("button")).click();
}

let sourceHost = 1;
/**
 * A user of the test's own, signed up over HTTP from a loopback address of its own (127.0.0.N: its own per-IP
 * rate-limit bucket), and signed in in the browser by the session cookie that sign-up set.
 */
export async function signedInUser(email: string, extra: Record<string, string> = {}): Promise<void> {
  await signUpInto(context, api, { email, password: PASSWORD, ...extra }, `127.0.0.${++sourceHost}`);
  await go("/");
  await poll(() => who().textContent()).toBe(`Signed in as ${email}`);
}

export async function go(path: string): Promise<void> {
  await page.goto(`${api}${path}`);
}

export async function signOut(): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await poll(() => who().textContent()).toBe("Signed out");
}

/** Starts the demo, the second origin and Chromium for this file's tests, and a fresh page for each test. */
export function setUpBrowserDemo(): void {
  beforeAll(async () => {
    await ensurePagesBuilt();
    work = mkdtempSync(join(tmpdir(), "latchkey-browser-"));
    // The second origin, in this process on port 0: the same built pages, spa.html for every path.
    let site: Hono | null = null;
    const spaPort = await new Promise<number>((resolve) => {
      spa = serve(
        {
          fetch: (request) => site?.fetch(request) ?? new Response(null, { status: 503 }),
          port: 0,
          hostname: "127.0.0.1",
        },
        (info) => resolve(info.port),
      );
    });
    spaOrigin = `http://127.0.0.1:${spaPort}`;
    // The demo's own OpenID provider must start: social sign-in is part of what this suite shows.
    demo = await startDemo({
      databaseUrl: `file:${join(work, "demo.db")}`,
      host: "127.0.0.1",
      env: { LATCHKEY_TRUSTED_ORIGINS: spaOrigin },
      provider: true,
    });
    ({ api, store } = demo);
    // The second origin's pages allow the API's origin, known only now.
    site = new Hono().get("*", webPages(WEB_ROOT, "spa.html", { apiOrigins: [api] }));
    context = await launchChromiumProfile(join(work, "profile"));
    page = context.pages()[0] ?? (await context.newPage());
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    spa?.close();
    await demo?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  // Each test starts signed out in a page of its own, with a user of its own: none depends on another's state.
  beforeEach(async () => {
    await context.clearCookies();
    const fresh = await context.newPage();
    await page.close();
    page = fresh;
  });
}
