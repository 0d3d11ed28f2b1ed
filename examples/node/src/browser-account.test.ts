// The demo web app in Chromium on the IP-address origin, a signed-in user's pages: settings, API keys, the JWT,
// two-factor, and every page through axe-core. Setup: browser-fixture.ts.
import { describe, expect, it } from "vitest";
import { base32Decode, totp } from "@latchkey/core/internal";
import {
  api,
  context,
  form,
  go,
  page,
  signedInUser,
  signOut,
  store,
  submit,
  setUpBrowserDemo,
  who,
} from "./browser-fixture.ts";
import { PASSWORD, poll, seriousViolations } from "./browser-harness.ts";

setUpBrowserDemo();

describe("the demo web app in Chromium", { timeout: 30_000 }, () => {
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
});

describe("accessibility (axe-core in Chromium)", { timeout: 60_000 }, () => {
  const violations = (path: string) => seriousViolations(page, `${api}${path}`);

  it("every page, signed out and signed in, has no serious or critical violation (contrast and labels included)", async () => {
    const found: string[] = [];
    for (const path of ["/", "/sign-in", "/sign-up", "/forgot-password", "/accept-invitation?invitationId=x"])
      found.push(...(await violations(path)));
    await signedInUser("axe@example.com");
    // /passkeys on this IP-address origin says passkeys are off (passkey-sign-in.browser.test.ts checks it in use).
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
