// The demo web app in Chromium on the IP-address origin, sessions and their end: devices, a session revoked
// elsewhere, account deletion, and a page on a second origin signing in with CORS. Setup: browser-fixture.ts.
import { describe, expect, it } from "vitest";
import {
  api,
  codeIn,
  context,
  FIREFOX_WINDOWS,
  form,
  go,
  IPHONE,
  linkIn,
  nextEmail,
  page,
  signedInUser,
  spaOrigin,
  store,
  submit,
  setUpBrowserDemo,
  who,
} from "./browser-fixture.ts";
import { freePort, PASSWORD, poll } from "./browser-harness.ts";

setUpBrowserDemo();

describe("the demo web app in Chromium", { timeout: 30_000 }, () => {
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
