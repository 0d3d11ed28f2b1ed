// Passkeys in a real Chromium: the demo's Passkeys page and sign-in form against the running demo server, with the
// DevTools protocol's virtual authenticator (CTAP2, internal transport, resident keys, user verification) standing
// in for the platform authenticator: real key pairs, real signatures, the browser's own WebAuthn checks. Effects are
// checked in the demo's database. The demo runs on http://localhost: browsers refuse WebAuthn on an IP address.
//
// Chromium's virtual authenticator with automatic presence simulation also answers a conditional (autofill)
// request at once, as if the user had picked the passkey from the email field's suggestions: the autofill test
// relies on that. Where a test needs the autofill request to wait (a user who has not picked yet, so that the
// button or a password does the sign-in), it turns presence simulation off while the sign-in page loads
// (`WebAuthn.setAutomaticPresenceSimulation`): the conditional request then stays pending until it is aborted.
//
// Chromium connects from 127.0.0.1 in every test, so the whole file shares the demo's per-IP limits on the passkey
// routes (10 registrations and 10 sign-in verifies a minute): it stays well below them (6 and 5).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FullStore, UserRecord } from "@latchkey/core";
import {
  ensurePagesBuilt,
  launchChromium,
  nextEmail,
  PASSWORD,
  poll,
  type RunningDemo,
  seriousViolations,
  signUpInto,
  startDemo,
} from "./browser-harness.ts";

const CANCELLED = "The passkey request was cancelled or not allowed. Nothing was changed.";
const UNKNOWN = "That passkey is not registered here (it may have been deleted). Sign in another way.";

let demo: RunningDemo;
let api = "";
let store: FullStore;
let browser: Browser;
let work = "";
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;

/** What the page asked of WebAuthn: `get` or `create`, modal or conditional, and how it ended (or `pending`). */
interface WebAuthnCall {
  kind: "get" | "create";
  mediation: string;
  outcome: string;
}

/** Records every `navigator.credentials.get/create` of the page (installed before the page's own script runs). */
function recordWebAuthn(): void {
  const calls: WebAuthnCall[] = [];
  Object.defineProperty(window, "__webauthn", { value: calls });
  const wrap =
    (kind: WebAuthnCall["kind"], original: (options?: CredentialRequestOptions) => Promise<Credential | null>) =>
    (options?: CredentialRequestOptions & { mediation?: string }) => {
      const call = { kind, mediation: options?.mediation ?? "modal", outcome: "pending" };
      calls.push(call);
      return original(options).then(
        (credential) => {
          call.outcome = "ok";
          return credential;
        },
        (error: Error) => {
          call.outcome = error.name;
          throw error;
        },
      );
    };
  const credentials = navigator.credentials;
  credentials.get = wrap("get", credentials.get.bind(credentials));
  credentials.create = wrap("create", credentials.create.bind(credentials) as never) as never;
}

const webAuthnCalls = () =>
  page.evaluate(() => (window as unknown as { __webauthn: WebAuthnCall[] }).__webauthn.map((c) => ({ ...c })));
const who = () => page.getByTestId("who");
const alert = () => page.getByRole("alert");

/**
 * A virtual platform authenticator that holds passkeys and verifies the user (fingerprint, PIN); `synced`: its
 * passkeys are backup eligible and backed up (a password manager's, synced between devices).
 */
async function addAuthenticator(options: { isUserVerified?: boolean; synced?: boolean } = {}): Promise<string> {
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: options.isUserVerified ?? true,
      automaticPresenceSimulation: true,
      ...(options.synced ? { defaultBackupEligibility: true, defaultBackupState: true } : {}),
    },
  });
  return authenticatorId;
}

const presence = (authenticatorId: string, enabled: boolean) =>
  cdp.send("WebAuthn.setAutomaticPresenceSimulation", { authenticatorId, enabled });

/** The credentials an authenticator holds, their ids in base64url as the store keeps them (CDP gives base64). */
const credentialsOf = async (authenticatorId: string) =>
  (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials.map((c) => ({
    ...c,
    credentialId: Buffer.from(c.credentialId, "base64").toString("base64url"),
  }));

let sourceHost = 1;
/** A password user of the test's own, signed up over HTTP and signed in in this browser. */
async function signedInUser(email: string): Promise<UserRecord> {
  await signUpInto(context, api, { email, password: PASSWORD }, `127.0.0.${++sourceHost}`);
  await page.goto(`${api}/`);
  await poll(() => who().textContent()).toBe(`Signed in as ${email}`);
  return (await store.users.findByEmail(email))!;
}

async function signOut(): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await poll(() => who().textContent()).toBe("Signed out");
}

/** Adds a passkey on the Passkeys page (opened from the header) and waits for its row. */
async function addPasskey(name: string): Promise<void> {
  await page.getByRole("link", { name: "Passkeys" }).click();
  await page.getByRole("heading", { name: "Passkeys", level: 1 }).waitFor();
  const rows = await page.getByTestId("passkey-row").count();
  await page.getByLabel("Name (optional)").fill(name);
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await page.getByText(`${name} is added. You can sign in with it now.`).waitFor();
  await poll(() => page.getByTestId("passkey-row").count()).toBe(rows + 1);
}

/**
 * Opens the sign-in page with the autofill request waiting (presence off), runs `meanwhile` there, then clicks the
 * passkey button.
 */
async function signInWithButton(authenticatorId: string, meanwhile?: () => Promise<void>): Promise<void> {
  await presence(authenticatorId, false);
  await page.goto(`${api}/sign-in`);
  await poll(webAuthnCalls).toEqual([{ kind: "get", mediation: "conditional", outcome: "pending" }]);
  await meanwhile?.();
  await presence(authenticatorId, true);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
}

beforeAll(async () => {
  await ensurePagesBuilt();
  work = mkdtempSync(join(tmpdir(), "latchkey-passkey-browser-"));
  demo = await startDemo({ databaseUrl: `file:${join(work, "demo.db")}`, host: "localhost", provider: false });
  ({ api, store } = demo);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await demo?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

// Each test: a browser context of its own (cookies, authenticators), a user of its own.
beforeEach(async () => {
  context = await browser.newContext();
  await context.addInitScript(recordWebAuthn);
  page = await context.newPage();
  cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
});

afterEach(async () => {
  await context?.close();
});

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
