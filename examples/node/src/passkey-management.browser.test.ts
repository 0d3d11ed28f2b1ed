// Passkeys in Chromium, managing them: rename and delete, a passkey-only account, and a user who cancels.
// Setup: passkey-fixture.ts.
import { describe, expect, it } from "vitest";
import { nextEmail, poll } from "./browser-harness.ts";
import {
  addAuthenticator,
  addPasskey,
  alert,
  api,
  CANCELLED,
  cdp,
  credentialsOf,
  demo,
  page,
  signedInUser,
  signInWithButton,
  signOut,
  store,
  UNKNOWN,
  setUpPasskeyDemo,
  webAuthnCalls,
  who,
} from "./passkey-fixture.ts";

setUpPasskeyDemo();

describe("passkeys in Chromium (virtual authenticator)", { timeout: 60_000 }, () => {
  it("renames a passkey, deletes it, and a sign-in with the deleted passkey is refused in words", async () => {
    const authenticator = await addAuthenticator();
    const user = await signedInUser("rhea@example.com");
    await addPasskey("Laptop");
    await page.getByRole("button", { name: "Rename Laptop" }).click();
    const rename = page.getByRole("form", { name: "rename passkey" });
    await rename.getByLabel("New name").fill("Work laptop");
    await rename.getByRole("button", { name: "Save name" }).click();
    await page.getByText("Renamed to Work laptop.").waitFor();
    await poll(() => page.getByTestId("passkey-name").allTextContents()).toEqual(["Work laptop"]);
    expect((await store.passkeys.listByUser(user.id)).map((p) => p.name)).toEqual(["Work laptop"]);

    await page.getByRole("button", { name: "Delete Work laptop" }).click();
    await page.getByText("Work laptop is deleted: it no longer signs in.").waitFor();
    await page.getByTestId("no-passkeys").waitFor();
    expect(await store.passkeys.listByUser(user.id)).toEqual([]);
    // The authenticator still holds the credential: the browser still offers it.
    const {
      credentials: [held],
    } = await cdp.send("WebAuthn.getCredentials", { authenticatorId: authenticator });
    expect(held).toBeDefined();

    await signOut();
    // Autofill picks the deleted passkey: refused, and said so. The page tells the browser that the server knows no
    // such credential (WebAuthn's signalUnknownCredential), and Chromium removes it from the authenticator.
    await page.goto(`${api}/sign-in`);
    await poll(() => alert().textContent()).toBe(UNKNOWN);
    expect(await webAuthnCalls()).toEqual([{ kind: "get", mediation: "conditional", outcome: "ok" }]);
    await poll(() => credentialsOf(authenticator)).toEqual([]);
    expect(await who().textContent()).toBe("Signed out");
    expect(await store.sessions.listByUser(user.id)).toEqual([]);

    // A browser that ignores the signal (signals are best effort) keeps offering it: the button is refused too.
    await cdp.send("WebAuthn.addCredential", { authenticatorId: authenticator, credential: held! });
    await signInWithButton(authenticator);
    await poll(async () => (await webAuthnCalls()).filter((c) => c.mediation === "modal")).toEqual([
      { kind: "get", mediation: "modal", outcome: "ok" },
    ]);
    await poll(() => alert().textContent()).toBe(UNKNOWN);
    expect(await who().textContent()).toBe("Signed out");
    expect(await store.sessions.listByUser(user.id)).toEqual([]);
  });

  it("signs up with a passkey alone, cannot delete its only way in, and verifies the email by code keeping the passkey", async () => {
    const authenticator = await addAuthenticator();
    await page.goto(`${api}/sign-up`);
    const form = page.getByRole("form", { name: "create an account with a passkey" });
    await form.getByLabel("Email", { exact: true }).fill("sol@example.com");
    await form.getByLabel("Name", { exact: true }).fill("Sol");
    await form.getByRole("button", { name: "Create account with a passkey" }).click();
    await poll(() => who().textContent()).toBe("Signed in as sol@example.com");
    expect(page.url()).toBe(`${api}/verify`);
    const user = (await store.users.findByEmail("sol@example.com"))!;
    expect(user).toMatchObject({ name: "Sol", emailVerified: false });
    // No password: the account's one way in is the passkey the authenticator now holds.
    expect(await store.accounts.listByUser(user.id)).toEqual([]);
    const [held] = await store.passkeys.listByUser(user.id);
    expect((await credentialsOf(authenticator)).map((c) => c.credentialId)).toEqual([held!.credentialId]);
    expect(await store.sessions.listByUser(user.id)).toHaveLength(1);

    await page.getByRole("link", { name: "Passkeys" }).click();
    await page.getByRole("heading", { name: "Passkeys", level: 1 }).waitFor();
    await page.getByRole("button", { name: "Delete Unnamed passkey" }).click();
    await poll(() => alert().textContent()).toBe(
      "This is your only way to sign in. Add a password, another passkey or another account first.",
    );
    expect(await store.passkeys.listByUser(user.id)).toHaveLength(1);

    // The code typed on the signed-in page (this session) proves the mailbox and keeps the passkey.
    await page.getByRole("link", { name: "Verify email" }).click();
    const mail = await nextEmail(demo, "sol@example.com", () =>
      page.getByRole("button", { name: "Email me a code" }).click(),
    );
    const code = /is (\d{6})\./.exec(mail)?.[1] ?? "";
    await page.getByRole("form", { name: "verify email" }).getByLabel("Code").fill(code);
    await page.getByRole("form", { name: "verify email" }).getByRole("button", { name: "Verify" }).click();
    await poll(async () => (await store.users.findById(user.id))?.emailVerified).toBe(true);
    expect(await store.passkeys.listByUser(user.id)).toHaveLength(1);

    // Signed out, the passkey signs the account in again.
    await signOut();
    await signInWithButton(authenticator);
    await poll(() => who().textContent()).toBe("Signed in as sol@example.com");
  });

  it("a user who cancels (the authenticator does not verify them) reads why; no passkey and no session is made", async () => {
    const authenticator = await addAuthenticator({ isUserVerified: false });
    const user = await signedInUser("tara@example.com");
    await page.getByRole("link", { name: "Passkeys" }).click();
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await poll(() => page.getByRole("form", { name: "add a passkey" }).getByRole("alert").textContent()).toBe(
      CANCELLED,
    );
    expect(await webAuthnCalls()).toEqual([{ kind: "create", mediation: "modal", outcome: "NotAllowedError" }]);
    expect(await store.passkeys.listByUser(user.id)).toEqual([]);
    expect(await credentialsOf(authenticator)).toEqual([]);

    // Signing in: the passkey prompt refused the same way, in words, and nobody is signed in.
    await signOut();
    await signInWithButton(authenticator);
    await poll(() => alert().textContent()).toBe(CANCELLED);
    expect(await who().textContent()).toBe("Signed out");
    expect(await store.sessions.listByUser(user.id)).toEqual([]);
  });
});
