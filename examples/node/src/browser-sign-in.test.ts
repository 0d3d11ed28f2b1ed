// The demo web app in Chromium on the IP-address origin, signing in: sign-up and email verification, a magic link,
// the password, an emailed code, a forgotten password, and the demo's OpenID provider. Setup: browser-fixture.ts.
import { describe, expect, it } from "vitest";
import {
  api,
  codeIn,
  context,
  form,
  go,
  linkIn,
  nextEmail,
  page,
  signedInUser,
  signOut,
  store,
  submit,
  setUpBrowserDemo,
  who,
} from "./browser-fixture.ts";
import { PASSWORD, poll } from "./browser-harness.ts";

setUpBrowserDemo();

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
