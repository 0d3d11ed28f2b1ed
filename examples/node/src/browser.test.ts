// The demo web app in a real Chromium (Debian's /usr/bin/chromium through playwright-core): every flow against the
// running demo server (`src/server.ts` on an embedded libSQL file, the pages Vite built), with real cookies and real
// Origin headers, plus a page on a second loopback origin that signs in with CORS and credentials. Effects are
// checked in the demo's own database. Codes and links come from the server's console, as a developer reads them.
// Passkeys need a host name rather than this suite's IP address: passkey.browser.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FullStore } from "@latchkey/core";
import { base32Decode, totp } from "@latchkey/core/internal";
import {
  ensurePagesBuilt,
  freePort,
  launchChromiumProfile,
  nextEmail as nextEmailOf,
  PASSWORD,
  poll,
  type RunningDemo,
  seriousViolations,
  signUpInto,
  startDemo,
} from "./browser-harness.ts";
import { WEB_ROOT, webPages } from "./static.ts";

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

let api = "";
let spaOrigin = "";
let demo: RunningDemo;
let spa: { close(callback?: () => void): unknown };
let context: BrowserContext;
let page: Page;
let store: FullStore;
let work = "";

/** Runs `action`, then waits for the next email to `to` and returns its text. */
const nextEmail = (to: string, action: () => Promise<unknown>) => nextEmailOf(demo, to, action);

const codeIn = (email: string) => /is (\d{6})\./.exec(email)?.[1] ?? "";
const linkIn = (email: string) => /(http:\/\/\S+)/.exec(email)?.[1] ?? "";
const form = (name: string): Locator => page.getByRole("form", { name });
const who = () => page.getByTestId("who");

async function submit(name: string, fields: Record<string, string>, button?: string): Promise<void> {
  const f = form(name);
  for (const [label, value] of Object.entries(fields)) await f.getByLabel(label, { exact: true }).fill(value);
  await (button ? f.getByRole("button", { name: button }) : f.getByRole("button")).click();
}

let sourceHost = 1;
/**
 * A user of the test's own, signed up over HTTP from a loopback address of its own (127.0.0.N: its own per-IP
 * rate-limit bucket), and signed in in the browser by the session cookie that sign-up set.
 */
async function signedInUser(email: string, extra: Record<string, string> = {}): Promise<void> {
  await signUpInto(context, api, { email, password: PASSWORD, ...extra }, `127.0.0.${++sourceHost}`);
  await go("/");
  await poll(() => who().textContent()).toBe(`Signed in as ${email}`);
}

async function go(path: string): Promise<void> {
  await page.goto(`${api}${path}`);
}

async function signOut(): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await poll(() => who().textContent()).toBe("Signed out");
}

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

describe("the demo web app in Chromium", { timeout: 30_000 }, () => {
  it("signs up, then verifies the email with the code from the console and stays signed in with the password", async () => {
    await go("/sign-up");
    await submit("sign up", { Email: "ada@example.com", Name: "Ada", Password: PASSWORD });
    await poll(() => who().textContent()).toBe("Signed in as ada@example.com");
    const ada = await store.users.findByEmail("ada@example.com");
    expect(ada).toMatchObject({ name: "Ada", emailVerified: false });
    const cookies = await context.cookies(api);
    expect(cookies.find((c) => c.name === "latchkey.session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });

    expect(page.url()).toBe(`${api}/verify`);
    const mail = await nextEmail("ada@example.com", () =>
      form("email me a verification code").getByRole("button").click(),
    );
    await submit("verify email", { Code: codeIn(mail) });
    await page.getByText("Your email ada@example.com is verified.").waitFor();
    await poll(() => who().textContent()).toBe("Signed in as ada@example.com");
    expect((await store.users.findByEmail("ada@example.com"))!.emailVerified).toBe(true);
    expect((await store.accounts.listByUser(ada!.id)).map((a) => a.providerId).sort()).toEqual([
      "EMAIL_OTP",
      "credential",
    ]);
  });

  it("signs in with a magic link from the console: opening it spends nothing, the page's button signs in", async () => {
    const email = "link@example.com";
    const mail = await nextEmail(email, async () => {
      const res = await fetch(`${api}/auth/sign-in/magic-link`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, callbackURL: "/" }),
      });
      expect(res.status).toBe(200);
    });
    const link = linkIn(mail);
    expect(link.startsWith(`${api}/auth/magic-link/verify?token=`)).toBe(true);
    await page.goto(link);
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    // The page alone (what a mail scanner fetches) created nothing.
    expect(await store.users.findByEmail(email)).toBeNull();
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${api}/`);
    await poll(() => who().textContent()).toBe(`Signed in as ${email}`);
    const user = (await store.users.findByEmail(email))!;
    expect(user.emailVerified).toBe(true);
    expect((await store.accounts.listByUser(user.id)).map((a) => a.providerId)).toEqual(["MAGIC_LINK"]);
    // Spent: the same link again says so on the page.
    await page.goto(link);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("This link is invalid, used or expired. Ask for a new one.").waitFor();
  });

  it("signs out and in with the password; a wrong password reads as words, not a code", async () => {
    await signedInUser("bob@example.com");
    await signOut();
    await go("/sign-in");
    // This origin is an IP address: the demo has no passkeys, and the sign-in page offers none once it learns so.
    await poll(() => page.getByRole("button", { name: "Sign in with a passkey" }).count()).toBe(0);
    expect(await page.getByRole("alert").count()).toBe(0);
    await submit("sign in with password", { "Email or username": "bob@example.com", Password: "not the password" });
    const alert = form("sign in with password").getByRole("alert");
    await poll(() => alert.textContent()).toBe("That email and password do not match an account.");
    // "Remember me" unticked: a cookie without an expiry (it ends with the browser) and a short session.
    await form("sign in with password").getByLabel("Remember me").uncheck();
    await submit("sign in with password", { "Email or username": "bob@example.com", Password: PASSWORD });
    await poll(() => who().textContent()).toBe("Signed in as bob@example.com");
    expect(page.url()).toBe(`${api}/`);
    const cookie = (await context.cookies(api)).find((c) => c.name === "latchkey.session")!;
    expect(cookie.expires).toBe(-1);
    const bob = (await store.users.findByEmail("bob@example.com"))!;
    const sessions = await store.sessions.listByUser(bob.id);
    expect(sessions[0]).toMatchObject({ rememberMe: false });
    expect(sessions[0]!.expiresAt.getTime() - sessions[0]!.createdAt.getTime()).toBe(86_400_000);
  });

  it("account settings: name, image and username; checking and adding a password", async () => {
    await signedInUser("carol@example.com");
    await page.getByRole("link", { name: "Settings" }).click();
    await submit("profile", {
      Name: "Carol Lovelace",
      "Image URL": "https://example.com/carol.png",
      Username: "carol_l",
    });
    await page.getByText("Profile saved.").waitFor();
    expect(await store.users.findByEmail("carol@example.com")).toMatchObject({
      name: "Carol Lovelace",
      image: "https://example.com/carol.png",
      username: "carol_l",
    });
    await submit("verify password", { Password: "wrong password!" });
    await poll(() => form("verify password").getByRole("alert").textContent()).toBe("That password is not right.");
    await submit("verify password", { Password: PASSWORD });
    await page.getByText("That password is right.").waitFor();
    await submit("set password", { "New password": "another long password" });
    await poll(() => form("set password").getByRole("alert").textContent()).toBe(
      "This account already has a password. Change it instead.",
    );
    await page.getByRole("link", { name: "Latchkey demo" }).click();
    await poll(() => page.getByTestId("profile-username").textContent()).toBe("carol_l");
  });

  it("API keys: create with a lifetime and see it once, list, use, revoke", async () => {
    await signedInUser("dave@example.com");
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByTestId("no-keys").waitFor();
    await form("create api key").getByLabel("Name").fill("ci");
    await form("create api key").getByLabel("Lifetime").selectOption("365d");
    await form("create api key").getByRole("button").click();
    const key = (await page.getByTestId("new-key").textContent())!;
    expect(key).toMatch(/^lk_/);
    await poll(() => page.getByTestId("key-row").count()).toBe(1);
    const [stored] = (
      await store.apiKeys.listByUser((await store.users.findByEmail("dave@example.com"))!.id, {
        limit: 10,
        cursor: null,
      })
    ).items;
    expect(stored!.expiresAt!.getTime() - stored!.createdAt.getTime()).toBe(365 * 86_400_000);
    expect((await fetch(`${api}/api/data`, { headers: { "x-api-key": key } })).status).toBe(200);
    // Shown once: after leaving the page only the list remains.
    await page.getByRole("link", { name: "JWT" }).click();
    await page.getByRole("link", { name: "API keys" }).click();
    await poll(() => page.getByTestId("key-row").count()).toBe(1);
    await poll(() => page.getByTestId("new-key").count()).toBe(0);
    await page.getByRole("button", { name: "Revoke ci" }).click();
    await page.getByTestId("no-keys").waitFor();
    expect((await fetch(`${api}/api/data`, { headers: { "x-api-key": key } })).status).toBe(401);
  });

  it("API keys: the usage chart shows the last 14 days, and reroll shows the new key once (old one in its grace)", async () => {
    await signedInUser("rita@example.com");
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByTestId("no-keys").waitFor();
    await form("create api key").getByLabel("Name").fill("svc");
    await form("create api key").getByRole("button").click();
    const first = (await page.getByTestId("new-key").textContent())!;
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${api}/api/data`, { headers: { "x-api-key": first } })).status).toBe(200);
    const bars = page.getByTestId("usage-bar");
    await page.getByRole("button", { name: "Refresh" }).click();
    await poll(() => bars.count()).toBe(14);
    // Today is the last bar: three valid uses, drawn as the tallest.
    await poll(() => bars.last().getAttribute("data-valid")).toBe("3");
    expect(await bars.first().getAttribute("data-valid")).toBe("0");
    const height = await bars
      .last()
      .locator(".usage-valid")
      .evaluate((e) => e.getBoundingClientRect().height);
    expect(height).toBeGreaterThan(0);

    await page.getByRole("button", { name: "Reroll svc" }).click();
    await poll(() => page.getByTestId("new-key").textContent()).not.toBe(first);
    const second = (await page.getByTestId("new-key").textContent())!;
    expect(second).toMatch(/^lk_/);
    const rita = (await store.users.findByEmail("rita@example.com"))!;
    const [row] = (await store.apiKeys.listByUser(rita.id, { limit: 10, cursor: null })).items;
    expect(row!.start).toBe(second.slice(0, 8));
    expect(row!.previousKeyExpiresAt!.getTime() - row!.rerolledAt!.getTime()).toBe(3_600_000);
    // Both values work during the grace; the new key is shown once only.
    expect((await fetch(`${api}/api/data`, { headers: { "x-api-key": second } })).status).toBe(200);
    expect((await fetch(`${api}/api/data`, { headers: { "x-api-key": first } })).status).toBe(200);
    await page.getByRole("link", { name: "JWT" }).click();
    await page.getByRole("link", { name: "API keys" }).click();
    await poll(() => page.getByTestId("new-key").count()).toBe(0);
    await poll(() => page.getByTestId("usage-bar").last().getAttribute("data-valid")).toBe("5");
    await page.getByRole("button", { name: "Revoke svc" }).click();
    await page.getByTestId("no-keys").waitFor();
  });

  it("shows the current JWT (from set-auth-jwt) and a fresh one, each verified against /jwks in the page", async () => {
    await signedInUser("erin@example.com");
    await page.getByRole("link", { name: "JWT" }).click();
    const ada = (await store.users.findByEmail("erin@example.com"))!;
    // The session store's JWT: the set-auth-jwt header of the last get-session.
    await poll(() => page.getByTestId("jwt-verified").textContent()).toContain(`subject ${ada.id}`);
    const fromHeader = (await page.getByTestId("jwt").textContent())!;
    expect(fromHeader).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    const [fresh] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${api}/auth/token` && r.request().method() === "POST"),
      page.getByRole("button", { name: "Get a fresh JWT" }).click(),
    ]);
    const { token } = (await fresh.json()) as { token: string };
    await poll(() => page.getByTestId("jwt").textContent()).toBe(token);
    await poll(() => page.getByTestId("jwt-verified").textContent()).toContain(`subject ${ada.id}`);
  });

  it("two-factor: set up from the page's QR key, sign in with the second step, trust the device, then skip it", async () => {
    await signedInUser("tf@example.com");
    await go("/two-factor");
    await submit("set up two-factor", { Password: PASSWORD });
    const shown = page.getByTestId("totp-secret");
    await poll(() => shown.textContent()).toMatch(/^[A-Z2-7]{32}$/);
    const secret = (await shown.textContent())!;
    const qr = page.getByRole("img", { name: "QR code for the authenticator app" });
    expect(await qr.evaluate((e) => e.tagName)).toBe("svg");
    expect((await qr.locator("path").getAttribute("d"))?.length).toBeGreaterThan(100);
    expect(await page.getByTestId("recovery-codes").locator("li").count()).toBe(10);
    // What an authenticator app computes from the key the page shows.
    const code = (ahead: number) =>
      totp(base32Decode(secret)!, Date.now() + ahead, { digits: 6, period: 30, algorithm: "SHA1" });
    await submit("confirm two-factor", { "Code from the app": code(0) });
    await poll(() => page.getByText("Two-factor is on").count()).toBe(1);
    const user = (await store.users.findByEmail("tf@example.com"))!;
    expect((await store.twoFactor.find(user.id))?.enabled).toBe(true);

    await signOut();
    await go("/sign-in");
    await submit("sign in with password", { "Email or username": "tf@example.com", Password: PASSWORD });
    const step = form("sign in with an authenticator code");
    await poll(() => step.count()).toBe(1);
    expect(await who().textContent()).toBe("Signed out");
    expect(await store.sessions.listByUser(user.id)).toHaveLength(0);
    await step.getByLabel("Trust this device for 30 days").check();
    // The code of the next time step: the one that switched two-factor on is spent (window 1 accepts the next).
    await submit("sign in with an authenticator code", { "Code from the authenticator app": code(30_000) });
    await poll(() => who().textContent()).toBe("Signed in as tf@example.com");
    expect((await context.cookies(api)).map((c) => c.name)).toContain("latchkey.trusted-device");

    await signOut();
    await go("/sign-in");
    await submit("sign in with password", { "Email or username": "tf@example.com", Password: PASSWORD });
    await poll(() => who().textContent()).toBe("Signed in as tf@example.com");
    expect(await form("sign in with an authenticator code").count()).toBe(0);
  });

  it("signs in with an emailed code", async () => {
    await signedInUser("frank@example.com");
    await signOut();
    await go("/sign-in");
    const mail = await nextEmail("frank@example.com", () =>
      submit("email me a sign-in code", { Email: "frank@example.com" }),
    );
    await submit("sign in with code", { Code: "000000" === codeIn(mail) ? "111111" : "000000" });
    await poll(() => form("sign in with code").getByRole("alert").textContent()).toBe(
      "That code is not right. Check the email and try again.",
    );
    await submit("sign in with code", { Code: codeIn(mail) });
    await poll(() => who().textContent()).toBe("Signed in as frank@example.com");
  });

  it("Devices: names each device (browser and OS), lists the sessions, signs out one other device, then every other one, and stays signed in", async () => {
    await signedInUser("dana@example.com");
    // Two more devices, signed in from elsewhere.
    const signInElsewhere = async (agent: string) => {
      const res = await fetch(`${api}/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": agent },
        body: JSON.stringify({ email: "dana@example.com", password: PASSWORD }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { credentials: { token: string } }).credentials.token;
    };
    const phone = await signInElsewhere(IPHONE);
    const tablet = await signInElsewhere(FIREFOX_WINDOWS);
    const alive = async (token: string) =>
      (await (await fetch(`${api}/auth/get-session`, { headers: { authorization: `Bearer ${token}` } })).json()) !==
      null;
    await page.getByRole("link", { name: "Devices" }).click();
    const rows = page.getByTestId("device-row");
    await poll(() => rows.count()).toBe(
      (await store.sessions.listByUser((await store.users.findByEmail("dana@example.com"))!.id)).length,
    );
    // Named as people name devices, with the raw User-Agent in the title; times as "just now", not timestamps.
    expect(await rows.first().textContent()).toContain("Firefox 133 on Windows");
    expect(await rows.first().getByTestId("device-name").getAttribute("title")).toBe(FIREFOX_WINDOWS);
    expect(await rows.first().textContent()).toContain("just now");
    await poll(() => rows.filter({ hasText: "Safari 17 on iOS" }).count()).toBe(1);
    await poll(() => page.getByTestId("this-device").count()).toBe(1);
    // This browser's session was made by the test's sign-up over HTTP, which sends no User-Agent.
    expect(await rows.filter({ has: page.getByTestId("this-device") }).textContent()).toMatch(/^Unknown device/);
    // Sign out the phone from its row.
    await rows.filter({ hasText: "Safari 17 on iOS" }).getByRole("button", { name: "Sign out this device" }).click();
    await page.getByText("That device is signed out.").waitFor();
    await poll(() => rows.filter({ hasText: "Safari 17 on iOS" }).count()).toBe(0);
    expect(await alive(phone)).toBe(false);
    expect(await alive(tablet)).toBe(true);
    // Then everywhere else: only this browser's session is left, and it still works.
    await page.getByRole("button", { name: "Sign out everywhere else" }).click();
    await page.getByText(/Signed out \d+ other device/).waitFor();
    await poll(() => rows.count()).toBe(1);
    expect(await alive(tablet)).toBe(false);
    const dana = (await store.users.findByEmail("dana@example.com"))!;
    expect(await store.sessions.listByUser(dana.id)).toHaveLength(1);
    await page.reload();
    await poll(() => who().textContent()).toBe("Signed in as dana@example.com");
  });

  it("the session store refetches when the window regains focus (a session revoked elsewhere shows as signed out)", async () => {
    await signedInUser("gina@example.com");
    const gina = (await store.users.findByEmail("gina@example.com"))!;
    expect(await store.sessions.deleteByUser(gina.id)).toBeGreaterThan(0);
    await page.evaluate(() => window.dispatchEvent(new Event("focus")));
    await poll(() => who().textContent()).toBe("Signed out");
  });

  it("forgot password: the emailed link opens a working page that sets the password", async () => {
    await signedInUser("hank@example.com", { username: "hank_l" });
    await signOut();
    await page.getByRole("link", { name: "Forgot password" }).click();
    const mail = await nextEmail("hank@example.com", () =>
      submit("request password reset", { Email: "hank@example.com" }),
    );
    await page.getByText("a link to set a new password is on its way").waitFor();
    const link = linkIn(mail);
    expect(link.startsWith(`${api}/reset-password?token=`)).toBe(true);
    await page.goto(link);
    await submit("reset password", { "New password": "a brand new password" });
    await page.getByText("Your password is changed.").waitFor();
    await page.getByRole("button", { name: "Go to sign in" }).click();
    await submit("sign in with password", { "Email or username": "hank_l", Password: PASSWORD });
    await form("sign in with password").getByRole("alert").waitFor();
    await submit("sign in with password", { "Email or username": "hank_l", Password: "a brand new password" });
    await poll(() => who().textContent()).toBe("Signed in as hank@example.com");
  });

  it("deletes the account with the password", async () => {
    await signedInUser("ivy@example.com");
    await page.getByRole("link", { name: "Delete account" }).click();
    await submit("delete account with password", { Password: "not it at all" });
    await poll(() => form("delete account with password").getByRole("alert").textContent()).toBe(
      "That password is not right.",
    );
    await submit("delete account with password", { Password: PASSWORD });
    await poll(() => who().textContent()).toBe("Signed out");
    expect(await store.users.findByEmail("ivy@example.com")).toBeNull();
  });

  it("a code-only account adds a password, then deletes itself through the emailed link", async () => {
    await go("/sign-in");
    const mail = await nextEmail("grace@example.com", () =>
      submit("email me a sign-in code", { Email: "grace@example.com" }),
    );
    await submit("sign in with code", { Code: codeIn(mail) });
    await poll(() => who().textContent()).toBe("Signed in as grace@example.com");
    await page.getByRole("link", { name: "Settings" }).click();
    await submit("set password", { "New password": "grace's own password" });
    await page.getByText("Password added.").waitFor();
    const grace = (await store.users.findByEmail("grace@example.com"))!;
    expect((await store.accounts.listByUser(grace.id)).map((a) => a.providerId).sort()).toEqual([
      "EMAIL_OTP",
      "credential",
    ]);

    await page.getByRole("link", { name: "Delete account" }).click();
    const deletion = await nextEmail("grace@example.com", () =>
      form("email me a deletion link").getByRole("button").click(),
    );
    await page.getByText("We emailed you a link").waitFor();
    expect(await store.users.findById(grace.id)).not.toBeNull();
    await page.goto(linkIn(deletion));
    await form("confirm deletion").getByRole("button").click();
    await page.getByText("Your account is deleted.").waitFor();
    expect(await store.users.findById(grace.id)).toBeNull();
  });
});

describe("accessibility (axe-core in Chromium)", { timeout: 60_000 }, () => {
  const violations = (path: string) => seriousViolations(page, `${api}${path}`);

  it("every page, signed out and signed in, has no serious or critical violation (contrast and labels included)", async () => {
    const found: string[] = [];
    for (const path of ["/", "/sign-in", "/sign-up", "/forgot-password", "/accept-invitation?invitationId=x"])
      found.push(...(await violations(path)));
    await signedInUser("axe@example.com");
    // /passkeys on this IP-address origin says passkeys are off (passkey.browser.test.ts checks it in use).
    const pages = [
      "/",
      "/settings",
      "/verify",
      "/api-keys",
      "/devices",
      "/passkeys",
      "/two-factor",
      "/jwt",
      "/accounts",
      // Without an organization yet; organization.browser.test.ts checks them with members and invitations listed.
      "/organizations",
      "/members",
      "/accept-invitation",
    ];
    for (const path of pages) found.push(...(await violations(path)));
    found.push(...(await violations("/delete-account")));
    expect(found).toEqual([]);
    // The Passkeys page checked above is the one an IP-address origin gets: it says why there are no passkeys.
    await go("/passkeys");
    await page.getByTestId("passkeys-off").waitFor();
  });
});

describe("sign-in with the demo's OpenID provider (Example ID, oidc-provider beside the demo)", {
  timeout: 30_000,
}, () => {
  const provider = () => page.getByRole("heading", { name: "Example ID" });

  it("Sign in with Example ID: the provider's page, one click, back signed in as a new user with a verified email", async () => {
    await go("/sign-in");
    await page.getByRole("button", { name: "Sign in with Example ID" }).click();
    await provider().waitFor();
    expect(new URL(page.url()).origin).not.toBe(api);
    await page.getByRole("button", { name: /Continue as Ada Lovelace/ }).click();
    await poll(() => who().textContent()).toBe("Signed in as ada@example.id");
    expect(new URL(page.url()).pathname).toBe("/");
    const ada = (await store.users.findByEmail("ada@example.id"))!;
    expect(ada.emailVerified).toBe(true);
    expect(ada.name).toBe("Ada Lovelace");
    const linked = await store.socialAccounts.findByProviderAccount("example-id", "ada");
    expect(linked?.user.id).toBe(ada.id);
    await page.getByRole("link", { name: "Connected accounts" }).click();
    await poll(() => page.getByTestId("account-row").allTextContents()).toEqual([
      expect.stringContaining("Example ID (ada)"),
    ]);
    // The only way in cannot be disconnected: the page says so in words, and the store keeps it.
    await page.getByRole("button", { name: "Disconnect" }).click();
    await poll(() => page.getByRole("alert").textContent()).toContain("only way to sign in");
    expect(await store.socialAccounts.findByProviderAccount("example-id", "ada")).not.toBeNull();
  });

  it("cancelling at the provider comes back to the sign-in page with words, and signs no one in", async () => {
    await go("/sign-in");
    await page.getByRole("button", { name: "Sign in with Example ID" }).click();
    await provider().waitFor();
    await page.getByRole("button", { name: "Cancel" }).click();
    await poll(() => page.getByRole("alert").first().textContent()).toContain("You cancelled at Example ID");
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    expect(new URL(page.url()).searchParams.get("error")).toBe("OAUTH_ACCESS_DENIED");
    await poll(() => who().textContent()).toBe("Signed out");
  });

  it("Connected accounts: a password user connects Example ID, signs in with it later, then disconnects it", async () => {
    await signedInUser("linker@example.com");
    await go("/accounts");
    await page.getByRole("button", { name: "Connect Example ID" }).click();
    await provider().waitFor();
    await page.getByRole("button", { name: /Continue as Grace Hopper/ }).click();
    await poll(() => page.getByTestId("account-row").allTextContents()).toEqual([
      expect.stringContaining("Email and password"),
      expect.stringContaining("Example ID (grace)"),
    ]);
    expect(new URL(page.url()).pathname).toBe("/accounts");
    const user = (await store.users.findByEmail("linker@example.com"))!;
    expect((await store.socialAccounts.findByProviderAccount("example-id", "grace"))?.user.id).toBe(user.id);

    // Signed out here, still signed in at the provider (it remembers Grace and her consent, so it asks nothing):
    // Grace's Example ID account signs in to this user, found by subject, not by email.
    await signOut();
    await go("/sign-in");
    await page.getByRole("button", { name: "Sign in with Example ID" }).click();
    await poll(() => who().textContent()).toBe("Signed in as linker@example.com");

    await go("/accounts");
    await page.getByRole("button", { name: "Disconnect" }).click();
    await poll(() => page.getByRole("status").textContent()).toBe("Example ID is disconnected.");
    await poll(() => page.getByTestId("account-row").allTextContents()).toEqual([
      expect.stringContaining("Email and password"),
    ]);
    expect(await store.socialAccounts.findByProviderAccount("example-id", "grace")).toBeNull();
  });
});

describe("a page on another origin", { timeout: 30_000 }, () => {
  it("a crafted ?api= link to another server does not make the page post the typed password there", async () => {
    const evil = `http://127.0.0.1:${await freePort()}`;
    const requested: string[] = [];
    page.on("request", (request) => void requested.push(request.url()));
    await page.goto(`${spaOrigin}/spa.html?api=${encodeURIComponent(evil)}`);
    await poll(() => page.getByTestId("refused").textContent()).toContain(api);
    expect(await page.getByLabel("Password").count()).toBe(0);
    expect(requested.filter((url) => url.startsWith(evil))).toEqual([]);
  });

  it("signs in with CORS and credentials, reads the session, and signs out", async () => {
    const up = await fetch(`${api}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "linus@example.com", password: PASSWORD }),
    });
    expect(up.status).toBe(200);
    await context.clearCookies();
    const sent: Array<Promise<string>> = [];
    page.on("request", (request) => {
      // allHeaders(): what went on the wire, Origin included (headers() shows only the page's own).
      if (!request.url().startsWith(`${api}/auth/`)) return;
      const line = request.allHeaders().then((h) => `${request.method()} ${h.origin ?? "no origin"}`);
      // A request after the last look (the sign-out's follow-ups) may still be reading its headers when the page
      // closes: that rejection is expected and must not surface as an unhandled one.
      line.catch(() => undefined);
      sent.push(line);
    });
    await page.goto(`${spaOrigin}/spa.html?api=${encodeURIComponent(api)}`);
    await poll(() => who().textContent()).toBe("Signed out");
    await submit("sign in with password", { Email: "linus@example.com", Password: "wrong password" });
    await poll(() => form("sign in with password").getByRole("alert").textContent()).toBe(
      "That email and password do not match an account.",
    );
    await submit("sign in with password", { Email: "linus@example.com", Password: PASSWORD });
    await poll(() => who().textContent()).toBe("Signed in as linus@example.com");
    // The cookie belongs to the API's origin; the page's own origin went with every call.
    expect((await context.cookies(api)).some((c) => c.name === "latchkey.session")).toBe(true);
    expect(new Set(await Promise.all(sent))).toEqual(new Set([`GET ${spaOrigin}`, `POST ${spaOrigin}`]));
    await page.getByRole("button", { name: "Sign out" }).click();
    await poll(() => who().textContent()).toBe("Signed out");
    // The page forgets the user before the sign-out's answer arrives: the cleared cookie comes with that answer.
    await poll(async () =>
      (await context.cookies(api)).some((c) => c.name === "latchkey.session" && c.value !== ""),
    ).toBe(false);
  });
});
