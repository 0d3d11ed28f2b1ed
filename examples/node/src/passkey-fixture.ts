// What the passkey suites share (passkey-sign-in.browser.test.ts, passkey-management.browser.test.ts). Passkeys
// in a real Chromium: the demo's Passkeys page and sign-in form against the running demo server, with the
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
// Chromium connects from 127.0.0.1 in every test, so each file's tests share its demo's per-IP limits on the passkey
// routes (10 registrations and 10 sign-in verifies a minute): each file stays well below them (both together made 6
// and 5).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { FullStore, UserRecord } from "@latchkey/core";
import {
  ensurePagesBuilt,
  launchChromium,
  PASSWORD,
  poll,
  type RunningDemo,
  signUpInto,
  startDemo,
} from "./browser-harness.ts";

export const CANCELLED = "The passkey request was cancelled or not allowed. Nothing was changed.";
export const UNKNOWN = "That passkey is not registered here (it may have been deleted). Sign in another way.";

export let demo: RunningDemo;
export let api = "";
export let store: FullStore;
let browser: Browser;
let work = "";
let context: BrowserContext;
export let page: Page;
export let cdp: CDPSession;

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

export const webAuthnCalls = () =>
  page.evaluate(() => (window as unknown as { __webauthn: WebAuthnCall[] }).__webauthn.map((c) => ({ ...c })));
export const who = () => page.getByTestId("who");
export const alert = () => page.getByRole("alert");

/**
 * A virtual platform authenticator that holds passkeys and verifies the user (fingerprint, PIN); `synced`: its
 * passkeys are backup eligible and backed up (a password manager's, synced between devices).
 */
export async function addAuthenticator(options: { isUserVerified?: boolean; synced?: boolean } = {}): Promise<string> {
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

export const presence = (authenticatorId: string, enabled: boolean) =>
  cdp.send("WebAuthn.setAutomaticPresenceSimulation", { authenticatorId, enabled });

/** The credentials an authenticator holds, their ids in base64url as the store keeps them (CDP gives base64). */
export const credentialsOf = async (authenticatorId: string) =>
  (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials.map((c) => ({
    ...c,
    credentialId: Buffer.from(c.credentialId, "base64").toString("base64url"),
  }));

let sourceHost = 1;
/** A password user of the test's own, signed up over HTTP and signed in in this browser. */
export async function signedInUser(email: string): Promise<UserRecord> {
  await signUpInto(context, api, { email, password: PASSWORD }, `127.0.0.${++sourceHost}`);
  await page.goto(`${api}/`);
  await poll(() => who().textContent()).toBe(`Signed in as ${email}`);
  return (await store.users.findByEmail(email))!;
}

export async function signOut(): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await poll(() => who().textContent()).toBe("Signed out");
}

/** Adds a passkey on the Passkeys page (opened from the header) and waits for its row. */
export async function addPasskey(name: string): Promise<void> {
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
export async function signInWithButton(authenticatorId: string, meanwhile?: () => Promise<void>): Promise<void> {
  await presence(authenticatorId, false);
  await page.goto(`${api}/sign-in`);
  await poll(webAuthnCalls).toEqual([{ kind: "get", mediation: "conditional", outcome: "pending" }]);
  await meanwhile?.();
  await presence(authenticatorId, true);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
}

/** Starts the demo on localhost and Chromium for this file's tests, and a fresh context with WebAuthn for each test. */
export function setUpPasskeyDemo(): void {
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
}
