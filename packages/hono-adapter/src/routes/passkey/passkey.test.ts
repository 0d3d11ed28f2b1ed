import { describe, expect, it } from "vitest";
import { passkeys, twoFactor, type AuthEvent, type PasskeyOptions } from "@latchkey/core";
import { BASE_URL, bearer, createTestAuth } from "../../../test/test-auth.ts";
import {
  b64url,
  SoftwareAuthenticator,
  type Cbor,
  type CredentialJson,
} from "@latchkey/test-support/software-authenticator";

const RP_ID = "app.example";

const b64decode = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const ORIGIN = BASE_URL;

type Options = {
  challenge: string;
  rp: { id: string };
  user: { id: string };
  allowCredentials?: { id: string }[];
  rpId?: string;
  excludeCredentials?: { id: string }[];
  authenticatorSelection?: Record<string, unknown>;
  attestation?: string;
};

async function setup(options: Partial<PasskeyOptions> = {}, extraPlugins: "two-factor" | null = null) {
  const plugin = passkeys({ rpId: RP_ID, rpName: "Example", ...options });
  const t = createTestAuth({ plugins: extraPlugins === "two-factor" ? [plugin, twoFactor()] : [plugin] });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  const { token, userId } = await t.signUp("ada@example.com");
  const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.request("POST", path, { body, headers });
  const code = async (res: Response) => ((await res.json()) as { code: string }).code;

  async function registrationOptions(sessionToken = token) {
    const res = await post("/passkey/register/options", {}, bearer(sessionToken));
    expect(res.status).toBe(200);
    return (await res.json()) as { options: Options; challengeToken: string; expiresAt: string };
  }

  /** Registers a passkey of `who` with `device` (default: Ada's authenticator). */
  async function register(device = authenticator, sessionToken = token, name?: string) {
    const { options, challengeToken } = await registrationOptions(sessionToken);
    const response = await device.create(options);
    const res = await post("/passkey/register/verify", { response, challengeToken, name }, bearer(sessionToken));
    expect(res.status).toBe(200);
    return (await res.json()) as { id: string; credentialId: string; name: string | null };
  }

  async function signInOptions(body: { email?: string } = {}) {
    const res = await post("/passkey/authenticate/options", body);
    expect(res.status).toBe(200);
    return (await res.json()) as { options: Options; challengeToken: string };
  }

  const verify = (response: CredentialJson, challengeToken: string, extra: Record<string, unknown> = {}) =>
    post("/passkey/authenticate/verify", { response, challengeToken, ...extra });

  return { t, events, token, userId, authenticator, post, code, registrationOptions, register, signInOptions, verify };
}

describe("passkeys over HTTP (software authenticator: real ES256 keys, CBOR attestation, signed assertions)", () => {
  it("registers a discoverable passkey and signs in with it, discoverable and by email", async () => {
    const s = await setup();
    const { options } = await s.registrationOptions();
    expect(options).toMatchObject({
      rp: { id: RP_ID, name: "Example" },
      attestation: "none",
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      excludeCredentials: [],
    });
    const passkey = await s.register(s.authenticator, s.token, "MacBook");
    expect(passkey).toMatchObject({ name: "MacBook", deviceType: "singleDevice", backedUp: false });
    expect(s.events.filter((e) => e.type === "PasskeyAdded")).toMatchObject([
      { userId: s.userId, passkeyId: passkey.id },
    ]);
    // The user's passkeys are excluded from the next registration.
    expect((await s.registrationOptions()).options.excludeCredentials).toMatchObject([{ id: passkey.credentialId }]);

    const discoverable = await s.signInOptions();
    expect(discoverable.options.allowCredentials).toEqual([]);
    const res = await s.verify(await s.authenticator.get(discoverable.options), discoverable.challengeToken);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { user: { id: string }; credentials: { token: string } };
    expect(body.user.id).toBe(s.userId);
    const me = await s.t.request("GET", "/get-session", { headers: bearer(body.credentials.token) });
    expect(((await me.json()) as { user: { id: string } }).user.id).toBe(s.userId);
    expect(s.events.filter((e) => e.type === "UserSignedIn").at(-1)).toMatchObject({
      userId: s.userId,
      method: "passkey",
    });

    const byEmail = await s.signInOptions({ email: "Ada@Example.com" });
    expect(byEmail.options.allowCredentials).toMatchObject([{ id: passkey.credentialId }]);
    const again = await s.verify(await s.authenticator.get(byEmail.options), byEmail.challengeToken);
    expect(again.status).toBe(200);
    const list = (await (await s.t.request("GET", "/passkey/list", { headers: bearer(s.token) })).json()) as {
      lastUsedAt: string | null;
    }[];
    expect(list).toHaveLength(1);
    expect(list[0]!.lastUsedAt).not.toBeNull();
  });

  it("a browser gets the challenge as an HttpOnly cookie (no token in the answer) and a session cookie", async () => {
    const s = await setup();
    await s.register();
    const res = await s.post("/passkey/authenticate/options", {}, { origin: ORIGIN });
    const body = (await res.json()) as { options: Options; challengeToken?: string };
    expect(body.challengeToken).toBeUndefined();
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-latchkey.passkey="))!;
    expect(cookie).toContain("HttpOnly");
    const value = cookie.slice(0, cookie.indexOf(";"));
    const response = await s.authenticator.get(body.options);
    const signedIn = await s.post("/passkey/authenticate/verify", { response }, { origin: ORIGIN, cookie: value });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.getSetCookie()[0]).toMatch(/^__Host-latchkey\.session=/);
    expect(signedIn.headers.getSetCookie().some((c) => c.startsWith("__Host-latchkey.passkey=;"))).toBe(true);
  });

  it("a replayed assertion and a reused challenge are refused; two verifies of one challenge racing give one session", async () => {
    const s = await setup();
    await s.register();
    const { options, challengeToken } = await s.signInOptions();
    const response = await s.authenticator.get(options);
    const [a, b] = await Promise.all([s.verify(response, challengeToken), s.verify(response, challengeToken)]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    expect(await s.code(a.status === 400 ? a : b)).toBe("PASSKEY_CHALLENGE_INVALID");
    // The same assertion with a new challenge token: the signed challenge is not that one.
    const fresh = await s.signInOptions();
    const replay = await s.verify(response, fresh.challengeToken);
    expect(replay.status).toBe(400);
    expect(await s.code(replay)).toBe("INVALID_PASSKEY_RESPONSE");
    expect(s.events.filter((e) => e.type === "UserSignedIn" && e.method === "passkey")).toHaveLength(1);
  });

  it("an expired challenge, and a challenge another client asked for, are refused", async () => {
    const s = await setup();
    await s.register();
    const old = await s.signInOptions();
    const oldResponse = await s.authenticator.get(old.options);
    s.t.clock.advance(5 * 60_000 + 1);
    const expired = await s.verify(oldResponse, old.challengeToken);
    expect(expired.status).toBe(400);
    expect(await s.code(expired)).toBe("PASSKEY_CHALLENGE_INVALID");

    // Client A's options answered by the authenticator, presented by client B with B's own challenge token.
    const mine = await s.signInOptions();
    const theirs = await s.signInOptions();
    const foreign = await s.verify(await s.authenticator.get(mine.options), theirs.challengeToken);
    expect(foreign.status).toBe(400);
    expect(await s.code(foreign)).toBe("INVALID_PASSKEY_RESPONSE");
    // Without any token (no cookie, no field): refused.
    const none = await s.post("/passkey/authenticate/verify", { response: await s.authenticator.get(mine.options) });
    expect(await s.code(none)).toBe("PASSKEY_CHALLENGE_INVALID");
    // A registration challenge does not sign in, and a sign-in challenge does not register.
    const reg = await s.registrationOptions();
    const cross = await s.verify(await s.authenticator.get(mine.options), reg.challengeToken);
    expect(await s.code(cross)).toBe("PASSKEY_CHALLENGE_INVALID");
  });

  it("a wrong origin, a wrong RP ID, a missing user verification or presence are refused (registration and sign-in)", async () => {
    const s = await setup();
    const reg = await s.registrationOptions();
    const badReg = await s.post(
      "/passkey/register/verify",
      {
        response: await new SoftwareAuthenticator({ origin: ORIGIN }).create(reg.options, {
          origin: "https://evil.example",
        }),
        challengeToken: reg.challengeToken,
      },
      bearer(s.token),
    );
    expect(badReg.status).toBe(400);
    expect(((await badReg.json()) as { message: string }).message).toContain("(origin)");
    const noUv = await s.registrationOptions();
    const noUvRes = await s.post(
      "/passkey/register/verify",
      {
        response: await new SoftwareAuthenticator({ origin: ORIGIN }).create(noUv.options, { uv: false }),
        challengeToken: noUv.challengeToken,
      },
      bearer(s.token),
    );
    expect(((await noUvRes.json()) as { message: string }).message).toContain("(user-verification)");
    expect(await (await s.t.request("GET", "/passkey/list", { headers: bearer(s.token) })).json()).toEqual([]);

    await s.register();
    const cases: [Parameters<SoftwareAuthenticator["get"]>[1], string][] = [
      [{ origin: "https://evil.example" }, "origin"],
      [{ origin: "https://sub.app.example.evil" }, "origin"],
      [{ rpId: "evil.example" }, "rp-id"],
      [{ uv: false }, "user-verification"],
      [{ up: false }, "user-presence"],
      [{ type: "webauthn.create" }, "type"],
    ];
    for (const [override, reason] of cases) {
      const { options, challengeToken } = await s.signInOptions();
      const res = await s.verify(await s.authenticator.get(options, override), challengeToken);
      expect(res.status, reason).toBe(400);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe("INVALID_PASSKEY_RESPONSE");
      expect(body.message).toContain(`(${reason})`);
    }
    expect(s.events.filter((e) => e.type === "UserSignedIn" && e.method === "passkey")).toHaveLength(0);
  });

  it("accepts an Android app origin when configured, and no other", async () => {
    const apk = `android:apk-key-hash:${b64url(new Uint8Array(32).fill(7))}`;
    const s = await setup({ origins: [ORIGIN, apk] });
    await s.register();
    const { options, challengeToken } = await s.signInOptions();
    const app = await s.verify(await s.authenticator.get(options, { origin: apk }), challengeToken);
    expect(app.status).toBe(200);
    const other = await s.signInOptions();
    const res = await s.verify(
      await s.authenticator.get(other.options, {
        origin: `android:apk-key-hash:${b64url(new Uint8Array(32).fill(8))}`,
      }),
      other.challengeToken,
    );
    expect(await s.code(res)).toBe("INVALID_PASSKEY_RESPONSE");
  });

  it("a credential of another user presented with this user's handle is refused", async () => {
    const s = await setup();
    await s.register();
    const mallory = await s.t.signUp("mallory@example.com");
    const theirs = new SoftwareAuthenticator({ origin: ORIGIN });
    await s.register(theirs, mallory.token);
    const { options, challengeToken } = await s.signInOptions();
    const adaHandle = s.authenticator.credentials[0]!.userHandle;
    const res = await s.verify(await theirs.get(options, { userHandle: adaHandle }), challengeToken);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain("(user-handle)");
    // Mallory's own handle signs in as Mallory, never as Ada.
    const own = await s.signInOptions();
    const ok = await s.verify(await theirs.get(own.options), own.challengeToken);
    expect(((await ok.json()) as { user: { id: string } }).user.id).toBe(mallory.userId);
  });

  it("a signature counter that does not advance is refused with PasskeyCounterRegression", async () => {
    const s = await setup();
    const passkey = await s.register();
    const first = await s.signInOptions();
    expect(
      (await s.verify(await s.authenticator.get(first.options, { counter: 10 }), first.challengeToken)).status,
    ).toBe(200);
    const clone = await s.signInOptions();
    const res = await s.verify(await s.authenticator.get(clone.options, { counter: 7 }), clone.challengeToken);
    expect(res.status).toBe(401);
    expect(await s.code(res)).toBe("PASSKEY_COUNTER_REGRESSION");
    expect(s.events.filter((e) => e.type === "PasskeyCounterRegression")).toMatchObject([
      { userId: s.userId, passkeyId: passkey.id, stored: 10, received: 7 },
    ]);
    const same = await s.signInOptions();
    expect(
      await s.code(await s.verify(await s.authenticator.get(same.options, { counter: 10 }), same.challengeToken)),
    ).toBe("PASSKEY_COUNTER_REGRESSION");
    // An authenticator that keeps no counter (always 0) signs in every time.
    const synced = new SoftwareAuthenticator({ origin: ORIGIN, counts: false, backedUp: true });
    const view = await s.register(synced);
    expect(view).toMatchObject({ deviceType: "multiDevice", backedUp: true });
    for (let i = 0; i < 2; i++) {
      const o = await s.signInOptions();
      expect((await s.verify(await synced.get(o.options), o.challengeToken)).status).toBe(200);
    }
  });

  it("a passkey deleted (in another tab) no longer signs in; the last way to sign in cannot be deleted", async () => {
    const s = await setup();
    const passkey = await s.register();
    const { options, challengeToken } = await s.signInOptions();
    const response = await s.authenticator.get(options);
    const del = await s.t.request("DELETE", `/passkey/${passkey.id}`, { headers: bearer(s.token) });
    expect(del.status).toBe(200);
    expect(s.events.filter((e) => e.type === "PasskeyRemoved")).toMatchObject([{ passkeyId: passkey.id }]);
    const res = await s.verify(response, challengeToken);
    expect(res.status).toBe(401);
    expect(await s.code(res)).toBe("UNKNOWN_PASSKEY");
    const gone = await s.t.request("DELETE", `/passkey/${passkey.id}`, { headers: bearer(s.token) });
    expect(await s.code(gone)).toBe("PASSKEY_NOT_FOUND");

    // A user whose only way to sign in is a passkey: its deletion is refused, atomically for two at once.
    const p1 = await s.register();
    const p2 = await s.register(new SoftwareAuthenticator({ origin: ORIGIN }));
    // The password goes (as for a user who signed up with a passkey alone): passkeys are the only way left.
    expect(await s.t.store.accounts.deleteAllExcept(s.userId, "none")).toBe(1);
    const results = await Promise.all(
      [p1, p2].map((p) => s.t.request("DELETE", `/passkey/${p.id}`, { headers: bearer(s.token) })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await s.code(results.find((r) => r.status === 409)!)).toBe("LAST_ACCOUNT");
    expect(await (await s.t.request("GET", "/passkey/list", { headers: bearer(s.token) })).json()).toHaveLength(1);
  });

  it("rename: the owner only; 1 to 64 characters", async () => {
    const s = await setup();
    const passkey = await s.register();
    const patch = (id: string, name: unknown, token = s.token) =>
      s.t.request("PATCH", `/passkey/${id}`, { body: { name }, headers: bearer(token) });
    const ok = await patch(passkey.id, "  YubiKey  ");
    expect(((await ok.json()) as { name: string }).name).toBe("YubiKey");
    expect((await patch(passkey.id, "")).status).toBe(400);
    expect((await patch(passkey.id, "x".repeat(65))).status).toBe(400);
    const other = await s.t.signUp("bob@example.com");
    const foreign = await patch(passkey.id, "mine", other.token);
    expect(foreign.status).toBe(404);
    expect(await s.code(foreign)).toBe("PASSKEY_NOT_FOUND");
  });

  it("malformed CBOR, bad base64url and over-long fields are 4xx, never 5xx, and change nothing", async () => {
    const s = await setup();
    await s.register();
    const { options } = await s.signInOptions();
    const good = await s.authenticator.get(options);
    const reg = await s.registrationOptions();
    const goodReg = await new SoftwareAuthenticator({ origin: ORIGIN }).create(reg.options);
    const inner = (r: CredentialJson, patch: Record<string, unknown>) => ({
      ...r,
      response: { ...r.response, ...patch },
    });
    const signIns: unknown[] = [
      inner(good, { authenticatorData: b64url(new Uint8Array([0xff, 0x00, 0x13])) }),
      inner(good, { signature: b64url(new Uint8Array([0xa1, 0x01])) }),
      inner(good, { clientDataJSON: b64url(new TextEncoder().encode("{not json")) }),
      inner(good, { clientDataJSON: "***" }),
      inner(good, { signature: "A".repeat(40_000) }),
      { ...good, id: "A".repeat(2_000), rawId: "A".repeat(2_000) },
      { ...good, rawId: "AAAA" },
      { ...good, type: "other" },
      { ...good, response: null },
      "not an object",
    ];
    for (const response of signIns) {
      const o = await s.signInOptions();
      const res = await s.verify(response as CredentialJson, o.challengeToken);
      expect(res.status, JSON.stringify(response).slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    const registrations: unknown[] = [
      inner(goodReg, { attestationObject: b64url(new Uint8Array([0xbf, 0x61])) }),
      inner(goodReg, { attestationObject: b64url(new Uint8Array([0x1b, 0xff, 0xff, 0xff, 0xff, 0xff])) }),
      inner(goodReg, { attestationObject: "A".repeat(40_000) }),
      inner(goodReg, { transports: "usb" }),
    ];
    for (const response of registrations) {
      const o = await s.registrationOptions();
      const res = await s.post(
        "/passkey/register/verify",
        { response, challengeToken: o.challengeToken },
        bearer(s.token),
      );
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    const long = await s.post(
      "/passkey/register/verify",
      { response: goodReg, challengeToken: reg.challengeToken, name: "x".repeat(65) },
      bearer(s.token),
    );
    expect(long.status).toBe(400);
    expect(await (await s.t.request("GET", "/passkey/list", { headers: bearer(s.token) })).json()).toHaveLength(1);
  });

  it("a passkey sign-in obeys the account lockout and the beforeSignIn hook", async () => {
    const s = await setup();
    await s.register();
    for (let i = 0; i < 5; i++)
      await s.post("/sign-in/email", { email: "ada@example.com", password: "wrong password!!" });
    const { options, challengeToken } = await s.signInOptions();
    const locked = await s.verify(await s.authenticator.get(options), challengeToken);
    expect(locked.status).toBe(429);
    expect(await s.code(locked)).toBe("ACCOUNT_LOCKED");

    const plugins = [passkeys({ rpId: RP_ID, rpName: "Example" })] as const;
    const t = createTestAuth({ plugins, hooks: { beforeSignIn: (user) => user.appMetadata.banned !== true } });
    const ada = await t.signUp("ada@example.com");
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const regOptions = (await (
      await t.request("POST", "/passkey/register/options", { body: {}, headers: bearer(ada.token) })
    ).json()) as { options: Options; challengeToken: string };
    const created = await device.create(regOptions.options);
    await t.request("POST", "/passkey/register/verify", {
      body: { response: created, challengeToken: regOptions.challengeToken },
      headers: bearer(ada.token),
    });
    await t.auth.api.updateUser(ada.userId, { appMetadata: { banned: true } });
    const o = (await (await t.request("POST", "/passkey/authenticate/options", { body: {} })).json()) as {
      options: Options;
      challengeToken: string;
    };
    const banned = await t.request("POST", "/passkey/authenticate/verify", {
      body: { response: await device.get(o.options), challengeToken: o.challengeToken },
    });
    expect(banned.status).toBe(403);
    expect(((await banned.json()) as { code: string }).code).toBe("SIGN_IN_REJECTED");
  });

  it("with user verification a passkey is both factors; without it (preferred) the second step is asked", async () => {
    const s = await setup({ userVerification: "preferred" }, "two-factor");
    await s.register();
    await s.t.store.twoFactor.savePending({
      userId: s.userId,
      secret: "v1.x",
      enabled: false,
      lastStep: null,
      recoveryCodes: [],
      trustedAfter: null,
      createdAt: new Date(s.t.clock.now()),
      updatedAt: new Date(s.t.clock.now()),
    });
    await s.t.store.twoFactor.acceptStep(s.userId, "v1.x", 1, new Date(s.t.clock.now()), { enable: true });
    const withUv = await s.signInOptions();
    const full = await s.verify(await s.authenticator.get(withUv.options), withUv.challengeToken);
    expect(full.status).toBe(200);
    expect(await full.json()).toHaveProperty("session");
    const withoutUv = await s.signInOptions();
    const partial = await s.verify(
      await s.authenticator.get(withoutUv.options, { uv: false }),
      withoutUv.challengeToken,
    );
    expect(partial.status).toBe(200);
    expect(await partial.json()).toMatchObject({ twoFactorRequired: true });
  });

  it("registration needs a session, a fresh one, and the challenge of the same user", async () => {
    const s = await setup();
    expect((await s.post("/passkey/register/options", {})).status).toBe(401);
    const bob = await s.t.signUp("bob@example.com");
    const bobs = await s.registrationOptions(bob.token);
    const res = await s.post(
      "/passkey/register/verify",
      { response: await s.authenticator.create(bobs.options), challengeToken: bobs.challengeToken },
      bearer(s.token),
    );
    expect(await s.code(res)).toBe("PASSKEY_CHALLENGE_INVALID");
    s.t.clock.advance(2 * 24 * 60 * 60_000);
    const stale = await s.post("/passkey/register/options", {}, bearer(s.token));
    expect(stale.status).toBe(403);
    expect(await s.code(stale)).toBe("SESSION_NOT_FRESH");
  });

  it("deleting a user removes their passkeys", async () => {
    const s = await setup();
    const passkey = await s.register();
    await s.t.auth.api.deleteUser(s.userId);
    expect(await s.t.store.passkeys.listByUser(s.userId)).toEqual([]);
    expect(await s.t.store.passkeys.findByCredentialId(passkey.credentialId)).toBeNull();
  });
});

describe("passkeys over HTTP: every key type and attestation format the verifier takes, and the ones it refuses", () => {
  for (const algorithm of ["ES256", "EdDSA", "RS256"] as const)
    for (const attestation of ["none", "packed"] as const)
      it(`${algorithm} keys with ${attestation} attestation register and sign in`, async () => {
        const s = await setup();
        const device = new SoftwareAuthenticator({ origin: ORIGIN, algorithm, attestation });
        await s.register(device);
        const { options, challengeToken } = await s.signInOptions();
        const res = await s.verify(await device.get(options), challengeToken);
        expect(res.status).toBe(200);
        const other = await s.signInOptions();
        // A signature over other data (another challenge signed) is refused for every key type.
        const forged = await device.get(other.options, { challenge: options.challenge });
        expect(((await (await s.verify(forged, other.challengeToken)).json()) as { message: string }).message).toMatch(
          /\((challenge|signature)\)/,
        );
      });

  /** A registration whose attestation object is bent by `edit` after the authenticator made it: the answer. */
  async function bent(
    s: Awaited<ReturnType<typeof setup>>,
    edit: (object: Map<string, Cbor>, authData: Uint8Array) => void,
    device = new SoftwareAuthenticator({ origin: ORIGIN }),
  ) {
    const { options, challengeToken } = await s.registrationOptions();
    const response = await device.create(options, {
      editAttestation: (object) => edit(object, object.get("authData") as Uint8Array),
    });
    const res = await s.post("/passkey/register/verify", { response, challengeToken }, bearer(s.token));
    return (await res.json()) as { code: string; message: string };
  }

  it("refuses attestation statements that do not hold, unknown formats, and contradictory flags", async () => {
    const s = await setup();
    const packed = () => new SoftwareAuthenticator({ origin: ORIGIN, attestation: "packed" });
    const cases: [string, (o: Map<string, Cbor>, a: Uint8Array) => void, SoftwareAuthenticator?][] = [
      ["(attestation)", (o) => o.set("fmt", "made-up")],
      ["(attestation)", (o) => o.set("attStmt", new Map<string, Cbor>([["alg", -7]]))],
      [
        "(attestation)",
        (o) => {
          const st = o.get("attStmt") as Map<string, Cbor>;
          const sig = st.get("sig") as Uint8Array;
          sig[sig.length - 1] = sig[sig.length - 1]! ^ 1;
        },
        packed(),
      ],
      ["(attestation)", (o) => (o.get("attStmt") as Map<string, Cbor>).set("alg", -257), packed()],
      // Backed up (BS) without backup eligibility (BE).
      ["(malformed)", (_, a) => void (a[32] = (a[32]! & ~0x08) | 0x10)],
      // Bytes after the credential's public key, without the extensions flag.
      ["(malformed)", (o, a) => o.set("authData", new Uint8Array([...a, 0]))],
      // No attested credential data.
      ["(malformed)", (o, a) => o.set("authData", Object.assign(a.slice(0, 37), { 32: a[32]! & ~0x40 }))],
    ];
    for (const [reason, edit, device] of cases) {
      const body = await bent(s, edit, device);
      expect(body.code, reason).toBe("INVALID_PASSKEY_RESPONSE");
      expect(body.message).toContain(reason);
    }
    expect(await (await s.t.request("GET", "/passkey/list", { headers: bearer(s.token) })).json()).toEqual([]);
  });

  it("refuses a response made in a cross-origin iframe, and a truncated ECDSA signature", async () => {
    const s = await setup();
    const { options, challengeToken } = await s.registrationOptions();
    const framedDevice = new SoftwareAuthenticator({ origin: ORIGIN });
    const response = await framedDevice.create(options, { crossOrigin: true });
    const res = await s.post("/passkey/register/verify", { response, challengeToken }, bearer(s.token));
    expect(((await res.json()) as { message: string }).message).toContain("(origin)");

    await s.register();
    const signIn = await s.signInOptions();
    const good = await s.authenticator.get(signIn.options);
    const der = b64decode(good.response.signature as string);
    const truncated = { ...good, response: { ...good.response, signature: b64url(der.slice(0, der.length - 1)) } };
    const refused = await s.verify(truncated, signIn.challengeToken);
    expect(((await refused.json()) as { message: string }).message).toContain("(signature)");
  });
});
