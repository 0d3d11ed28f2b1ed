// What organization.browser.test.ts sets up and shares: the demo server on an embedded libSQL file, one Chromium,
// a browser context per person (closed after each test), the organization pages' words and steps.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { FullStore } from "@latchkey/core";
import {
  ensurePagesBuilt,
  launchChromium,
  nextEmail as nextEmailOf,
  PASSWORD,
  poll,
  type RunningDemo,
  signUpInto,
  startDemo,
} from "./browser-harness.ts";

export const LAST_OWNER = "The organization's last owner cannot leave, be removed or be demoted";
export const FORBIDDEN = "Your role in this organization does not allow this";
export const NOT_A_MEMBER = "No such organization, or you are not a member of it";
export const NOT_PENDING = "The invitation was answered or canceled already";
export const NOT_YOURS = "This invitation was sent to another address";

export let demo: RunningDemo;
export let api = "";
export let store: FullStore;
let browser: Browser;
let work = "";
const contexts: BrowserContext[] = [];

export const nextEmail = (to: string, action: () => Promise<unknown>) => nextEmailOf(demo, to, action);
export const codeIn = (email: string) => /is (\d{6})\./.exec(email)?.[1] ?? "";
export const linkIn = (email: string) => /(http:\/\/\S+)/.exec(email)?.[1] ?? "";
export const form = (page: Page, name: string): Locator => page.getByRole("form", { name });

export async function submit(page: Page, name: string, fields: Record<string, string>): Promise<void> {
  const f = form(page, name);
  for (const [label, value] of Object.entries(fields)) await f.getByLabel(label, { exact: true }).fill(value);
  await f.getByRole("button").click();
}

/** A browser context of its own (a second person, or the same one on another device), closed after the test. */
export async function person(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  return context.newPage();
}

let sourceHost = 1;
/** A user signed up over HTTP from a loopback address of its own (its own per-IP bucket), signed in in `page`. */
export async function signedIn(page: Page, email: string, name: string): Promise<void> {
  await signUpInto(page.context(), api, { email, password: PASSWORD, name }, `127.0.0.${++sourceHost}`);
}

/** The Organizations page: creates one (it becomes the active one) and waits for it in the list. */
export async function createOrganization(page: Page, fields: Record<string, string>): Promise<void> {
  const rows = page.getByTestId("organization-row");
  const before = await rows.count();
  await submit(page, "create organization", fields);
  await poll(() => rows.count()).toBe(before + 1);
}

export const activeRow = (page: Page) =>
  page.getByTestId("organization-row").filter({ has: page.getByTestId("active-mark") });

export async function activeOrganizationOf(email: string): Promise<Array<string | null | undefined>> {
  const user = (await store.users.findByEmail(email))!;
  return (await store.sessions.listByUser(user.id)).map((s) => s.activeOrganizationId);
}

/** Starts the demo and Chromium for this file's tests; closes each test's browser contexts after it. */
export function setUpOrganizationDemo(): void {
  beforeAll(async () => {
    await ensurePagesBuilt();
    work = mkdtempSync(join(tmpdir(), "latchkey-org-browser-"));
    demo = await startDemo({ databaseUrl: `file:${join(work, "demo.db")}`, host: "127.0.0.1", provider: false });
    ({ api, store } = demo);
    browser = await launchChromium();
  }, 120_000);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });
}
