import { describe, expect, it } from "vitest";
import { bearer } from "../../../test/test-auth.ts";
import { b64url, SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import { ORIGIN, setup } from "../../../test/routes/passkey/fixtures.ts";

describe("passkeys over HTTP (software authenticator: real ES256 keys, CBOR attestation, signed assertions)", () => {
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
});
