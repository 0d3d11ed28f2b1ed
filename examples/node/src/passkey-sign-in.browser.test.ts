// Passkeys in Chromium, signing in: one and two authenticators registering on the Passkeys page and signing in with
// the button and with autofill, and the pending autofill request ending. Setup: passkey-fixture.ts.
import { describe, expect, it } from "vitest";
import { PASSWORD, poll, seriousViolations } from "./browser-harness.ts";
import {
  addAuthenticator,
  addPasskey,
  alert,
  api,
  cdp,
  credentialsOf,
  page,
  presence,
  signedInUser,
  signInWithButton,
  signOut,
  store,
  setUpPasskeyDemo,
  webAuthnCalls,
  who,
} from "./passkey-fixture.ts";

setUpPasskeyDemo();

describe("passkeys in Chromium (virtual authenticator)", { timeout: 60_000 }, () => {
  it("registers a passkey on the Passkeys page, then signs in with the button and with autofill", async () => {
    const authenticator = await addAuthenticator();
    const user = await signedInUser("pia@example.com");
    await addPasskey("Laptop");
    const row = page.getByTestId("passkey-row");
    expect(await row.getByTestId("passkey-name").textContent()).toBe("Laptop");
    expect(await row.getByTestId("passkey-last-used").textContent()).toBe("Never");
    expect(await row.textContent()).toContain("just now");
    const [stored, ...others] = await store.passkeys.listByUser(user.id);
    expect(others).toEqual([]);
    const [held] = await credentialsOf(authenticator);
    expect(stored).toMatchObject({ name: "Laptop", credentialId: held!.credentialId, lastUsedAt: null });
    expect(held).toMatchObject({ isResidentCredential: true, rpId: "localhost" });

    // The button: the pending autofill request gives way to the button's.
    await signOut();
    expect(await store.sessions.listByUser(user.id)).toEqual([]);
    await signInWithButton(authenticator, async () => {
      // The field whose suggestions hold the passkeys (conditional mediation).
      expect(await page.getByLabel("Email or username").getAttribute("autocomplete")).toBe("username webauthn");
    });
    await poll(() => who().textContent()).toBe("Signed in as pia@example.com");
    expect(await webAuthnCalls()).toEqual([
      { kind: "get", mediation: "conditional", outcome: "AbortError" },
      { kind: "get", mediation: "modal", outcome: "ok" },
    ]);
    expect(await store.sessions.listByUser(user.id)).toHaveLength(1);
    expect((await store.passkeys.listByUser(user.id))[0]!.lastUsedAt).not.toBeNull();

    // Autofill: the email field offers the passkey; picking it signs in with no click on any button. Chromium's
    // virtual authenticator answers the conditional request as soon as the page makes it (as if the user had
    // focused the field and picked the passkey), so the test only opens the page.
    await signOut();
    await page.goto(`${api}/sign-in`);
    await poll(() => who().textContent()).toBe("Signed in as pia@example.com");
    expect(await webAuthnCalls()).toEqual([{ kind: "get", mediation: "conditional", outcome: "ok" }]);
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await store.sessions.listByUser(user.id)).toHaveLength(1);
  });

  it("a second authenticator registers a second passkey; both are listed, and the second signs in", async () => {
    const first = await addAuthenticator({ synced: true });
    const user = await signedInUser("quinn@example.com");
    await addPasskey("Phone");
    // The phone is gone; a security key takes its place and registers a passkey of its own.
    await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: first });
    const second = await addAuthenticator();
    await addPasskey("Security key");
    expect(await page.getByTestId("passkey-name").allTextContents()).toEqual(["Phone", "Security key"]);
    // The phone's passkey is synced (backed up); the security key's stays on it.
    expect(await page.getByTestId("passkey-backup").allTextContents()).toEqual(["Yes, synced", "No, this device only"]);
    const stored = await store.passkeys.listByUser(user.id);
    expect(stored.map((p) => [p.deviceType, p.backedUp])).toEqual([
      ["multiDevice", true],
      ["singleDevice", false],
    ]);
    const [held] = await credentialsOf(second);
    expect(stored.map((p) => p.name)).toEqual(["Phone", "Security key"]);
    expect(stored[1]!.credentialId).toBe(held!.credentialId);
    expect(stored[0]!.credentialId).not.toBe(held!.credentialId);

    await signOut();
    await signInWithButton(second);
    await poll(() => who().textContent()).toBe("Signed in as quinn@example.com");
    expect(await store.sessions.listByUser(user.id)).toHaveLength(1);
    const used = await store.passkeys.listByUser(user.id);
    expect(used.map((p) => p.lastUsedAt === null)).toEqual([true, false]);
    await page.getByRole("link", { name: "Passkeys" }).click();
    await poll(() => page.getByTestId("passkey-last-used").allTextContents()).toEqual(["Never", "just now"]);

    // The page with its passkeys listed and the rename form open passes axe (contrast, labels, names).
    await page.getByRole("button", { name: "Rename Phone" }).click();
    await page.getByRole("form", { name: "rename passkey" }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("the pending autofill request ends when the user signs in with a password, or leaves the sign-in page", async () => {
    const authenticator = await addAuthenticator();
    await presence(authenticator, false);
    await signedInUser("uma@example.com");
    await signOut();
    await page.goto(`${api}/sign-in`);
    await poll(webAuthnCalls).toEqual([{ kind: "get", mediation: "conditional", outcome: "pending" }]);
    const form = page.getByRole("form", { name: "sign in with password" });
    await form.getByLabel("Email or username").fill("uma@example.com");
    await form.getByLabel("Password").fill(PASSWORD);
    await form.getByRole("button", { name: "Sign in" }).click();
    await poll(() => who().textContent()).toBe("Signed in as uma@example.com");
    expect(await webAuthnCalls()).toEqual([{ kind: "get", mediation: "conditional", outcome: "AbortError" }]);

    // Leaving the page (a link of the app, no reload) ends the next one; no message shows for either.
    await signOut();
    await page.getByRole("link", { name: "Sign in" }).click();
    await poll(async () => (await webAuthnCalls()).at(-1)).toEqual({
      kind: "get",
      mediation: "conditional",
      outcome: "pending",
    });
    await page.getByRole("link", { name: "Forgot password" }).click();
    await page.getByRole("heading", { name: "Forgot your password?" }).waitFor();
    await poll(async () => (await webAuthnCalls()).map((c) => c.outcome)).toEqual(["AbortError", "AbortError"]);
    expect(await alert().count()).toBe(0);
  });
});
