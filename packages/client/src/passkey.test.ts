import { afterEach, describe, expect, it, vi } from "vitest";
import { passkeys } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { b64url, type CredentialJson, SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import { createLatchkeyClient } from "./index.ts";

const BASE = "https://app.example";

function client() {
  const auth = createAuth({
    secret: "client-passkey-0123456789abcdefghijklmnopqrstuvwxyz",
    baseUrl: BASE,
    database: memoryStore(),
    getClientIp: () => "192.0.2.21",
    plugins: [passkeys({ rpId: "app.example", rpName: "Example", allowPasskeyOnlyAccounts: true })],
  });
  return createLatchkeyClient({ baseURL: `${BASE}/auth`, auth: "bearer", fetch: (r) => auth.handler(r) });
}

const buffer = (text: string) => {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer;
};

/** A `PublicKeyCredential` as the browser hands it to script, from the authenticator's JSON. */
function credentialOf(json: CredentialJson, transports: string[] = []) {
  const response = Object.fromEntries(
    Object.entries(json.response)
      .filter(([key]) => key !== "transports")
      .map(([key, value]) => [key, buffer(value as string)]),
  );
  return {
    id: json.id,
    rawId: buffer(json.rawId),
    type: json.type,
    authenticatorAttachment: "platform",
    response: { ...response, getTransports: () => transports },
    getClientExtensionResults: () => ({}),
  };
}

/**
 * A browser with WebAuthn: `navigator.credentials` answered by a software authenticator (real keys and
 * signatures), or refusing like a user who cancels the prompt.
 */
function fakeBrowser(authenticator: SoftwareAuthenticator | "cancel") {
  const seen: Array<{ mediation?: string; unknown?: { rpId: string; credentialId: string } }> = [];
  const PublicKeyCredential = Object.assign(() => undefined, {
    isConditionalMediationAvailable: async () => true,
    // The Signal API: the server told the page that it knows no such credential.
    signalUnknownCredential: async (unknown: { rpId: string; credentialId: string }) => void seen.push({ unknown }),
  });
  vi.stubGlobal("PublicKeyCredential", PublicKeyCredential);
  vi.stubGlobal("window", { PublicKeyCredential, location: { hostname: "app.example" } });
  vi.stubGlobal("document", { querySelectorAll: () => [{}] });
  const refuse = () =>
    Promise.reject(new DOMException("The operation either timed out or was not allowed.", "NotAllowedError"));
  vi.stubGlobal("navigator", {
    credentials: {
      async create(options: { publicKey: { challenge: ArrayBuffer; rp: { id: string }; user: { id: ArrayBuffer } } }) {
        seen.push({});
        if (authenticator === "cancel") return refuse();
        const { challenge, rp, user } = options.publicKey;
        const json = await authenticator.create({
          challenge: b64url(new Uint8Array(challenge)),
          rp,
          user: { id: b64url(new Uint8Array(user.id)) },
        });
        return credentialOf(json, ["internal"]);
      },
      async get(options: { mediation?: string; publicKey: { challenge: ArrayBuffer; rpId: string } }) {
        seen.push({ mediation: options.mediation });
        if (authenticator === "cancel") return refuse();
        const json = await authenticator.get({
          challenge: b64url(new Uint8Array(options.publicKey.challenge)),
          rpId: options.publicKey.rpId,
        });
        return credentialOf(json);
      },
    },
  });
  return seen;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("passkey.register and passkey.signIn", () => {
  it("registers with the browser's WebAuthn API, then signs in with the button and with autofill", async () => {
    const auth = client();
    expect((await auth.signUpEmail({ email: "ada@example.com", password: "correct horse battery" })).error).toBeNull();
    const authenticator = new SoftwareAuthenticator({ origin: BASE });
    const seen = fakeBrowser(authenticator);
    const registered = await auth.passkey.register({ name: "Laptop" });
    expect(registered.error).toBeNull();
    expect(registered.data).toMatchObject({ name: "Laptop", transports: ["internal"] });
    const listed = await auth.listPasskeys();
    expect(listed.data).toHaveLength(1);

    await auth.signOut();
    const button = await auth.passkey.signIn();
    expect(button.error).toBeNull();
    expect(button.data).toMatchObject({ user: { email: "ada@example.com" } });
    const autofill = await auth.passkey.signIn({ autoFill: true, rememberMe: false });
    expect(autofill.error).toBeNull();
    expect(seen.map((s) => s.mediation)).toEqual([undefined, undefined, "conditional"]);

    // Path parameters: rename and delete go to /passkey/{id}.
    const id = listed.data![0]!.id;
    expect((await auth.renamePasskey({ id, name: "Work laptop" })).data).toMatchObject({ name: "Work laptop" });
    expect((await auth.deletePasskey({ id })).data).toEqual({ success: true });
    expect((await auth.listPasskeys()).data).toEqual([]);
    const gone = await auth.deletePasskey({ id });
    expect(gone.error).toMatchObject({ code: "PASSKEY_NOT_FOUND", status: 404 });
  });

  it("a sign-in with a passkey the server no longer knows tells the browser to forget it (signalUnknownCredential)", async () => {
    const auth = client();
    await auth.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    const authenticator = new SoftwareAuthenticator({ origin: BASE });
    const seen = fakeBrowser(authenticator);
    const registered = await auth.passkey.register({ name: "Laptop" });
    expect((await auth.passkey.signIn()).error).toBeNull();
    expect(seen.filter((s) => s.unknown)).toEqual([]);
    // Deleted on the server (here, or from another device); the authenticator still holds it.
    expect((await auth.deletePasskey({ id: registered.data!.id })).error).toBeNull();
    await auth.signOut();
    const refused = await auth.passkey.signIn();
    expect(refused.error).toMatchObject({ code: "UNKNOWN_PASSKEY", status: 401 });
    expect(seen.filter((s) => s.unknown)).toEqual([
      { unknown: { rpId: "app.example", credentialId: registered.data!.credentialId } },
    ]);
  });

  it("a user who cancels the prompt gets PASSKEY_CANCELLED, and nothing is registered", async () => {
    const auth = client();
    await auth.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    fakeBrowser("cancel");
    const refused = await auth.passkey.register();
    expect(refused.data).toBeNull();
    expect(refused.error).toMatchObject({ code: "PASSKEY_CANCELLED", status: 0 });
    expect(refused.error?.message).toMatch(/cancelled|timed out/);
    expect((await auth.listPasskeys()).data).toEqual([]);
    expect((await auth.passkey.signIn()).error).toMatchObject({ code: "PASSKEY_CANCELLED" });
  });

  it("passkey.signUp creates a passkey-only account and signs in; a taken email never asks the browser", async () => {
    const auth = client();
    const authenticator = new SoftwareAuthenticator({ origin: BASE });
    const seen = fakeBrowser(authenticator);
    const signedUp = await auth.passkey.signUp({ email: "grace@example.com", name: "Grace", passkeyName: "Phone" });
    expect(signedUp.error).toBeNull();
    expect(signedUp.data).toMatchObject({ user: { email: "grace@example.com", name: "Grace", emailVerified: false } });
    expect((await auth.getSession()).data).toMatchObject({ user: { email: "grace@example.com" } });
    expect((await auth.listPasskeys()).data).toMatchObject([{ name: "Phone" }]);
    await auth.signOut();
    expect((await auth.passkey.signIn()).data).toMatchObject({ user: { email: "grace@example.com" } });
    const taken = await auth.passkey.signUp({ email: "grace@example.com" });
    expect(taken.error).toMatchObject({ code: "USER_ALREADY_EXISTS", status: 422 });
    expect(seen).toHaveLength(2);
  });
});

/**
 * A browser whose WebAuthn requests wait for the user (who never answers): they end only when their `signal`
 * aborts. `available` holds autofill's availability answer back until the test releases it.
 */
function waitingBrowser() {
  const requests: Array<{ kind: "create" | "get"; mediation?: string; signal: AbortSignal }> = [];
  let release: (available: boolean) => void = () => undefined;
  const available = new Promise<boolean>((resolve) => {
    release = resolve;
  });
  const PublicKeyCredential = Object.assign(() => undefined, { isConditionalMediationAvailable: () => available });
  vi.stubGlobal("PublicKeyCredential", PublicKeyCredential);
  vi.stubGlobal("window", { PublicKeyCredential, location: { hostname: "app.example" } });
  vi.stubGlobal("document", { querySelectorAll: () => [{}] });
  const wait = (kind: "create" | "get") => (options: { mediation?: string; signal: AbortSignal }) => {
    requests.push({ kind, mediation: options.mediation, signal: options.signal });
    return new Promise((_, reject) =>
      options.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
    );
  };
  vi.stubGlobal("navigator", { credentials: { create: wait("create"), get: wait("get") } });
  return { requests, release };
}

describe("aborting a passkey call (CallOptions.signal)", () => {
  it("cancels the pending autofill request (PASSKEY_CANCELLED)", async () => {
    const auth = client();
    const browser = waitingBrowser();
    browser.release(true);
    const stop = new AbortController();
    const pending = auth.passkey.signIn({ autoFill: true }, { signal: stop.signal });
    await expect.poll(() => browser.requests.length).toBe(1);
    expect(browser.requests[0]).toMatchObject({ kind: "get", mediation: "conditional" });
    stop.abort();
    expect((await pending).error).toMatchObject({ code: "PASSKEY_CANCELLED", status: 0 });
    expect(browser.requests[0]!.signal.aborted).toBe(true);
  });

  it("an abort while the browser is asked whether it offers autofill still cancels the request that follows", async () => {
    const auth = client();
    const browser = waitingBrowser();
    const stop = new AbortController();
    const pending = auth.passkey.signIn({ autoFill: true }, { signal: stop.signal });
    // The options are fetched; the ceremony waits on isConditionalMediationAvailable() when the page leaves.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(browser.requests).toEqual([]);
    stop.abort();
    browser.release(true);
    expect((await pending).error).toMatchObject({ code: "PASSKEY_CANCELLED" });
    expect(browser.requests).toHaveLength(1);
    expect(browser.requests[0]!.signal.aborted).toBe(true);
  });

  it("a signal that aborts after its ceremony ended leaves the next ceremony alone", async () => {
    const auth = client();
    await auth.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    const browser = waitingBrowser();
    browser.release(true);
    const first = new AbortController();
    const autofill = auth.passkey.signIn({ autoFill: true }, { signal: first.signal });
    await expect.poll(() => browser.requests.length).toBe(1);
    // The button (or a registration) takes over: the autofill request gives way, and its signal is spent.
    const own = new AbortController();
    const registering = auth.passkey.register({}, { signal: own.signal });
    await expect.poll(() => browser.requests.length).toBe(2);
    expect((await autofill).error).toMatchObject({ code: "PASSKEY_CANCELLED" });
    first.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(browser.requests[1]).toMatchObject({ kind: "create" });
    expect(browser.requests[1]!.signal.aborted).toBe(false);
    own.abort();
    expect((await registering).error).toMatchObject({ code: "PASSKEY_CANCELLED" });
  });
});
