import { describe, expect, it } from "vitest";
import { bearer } from "../../../test/test-auth.ts";
import { b64url, SoftwareAuthenticator, type CredentialJson } from "@latchkey/test-support/software-authenticator";
import { ORIGIN, setup } from "../../../test/routes/passkey/fixtures.ts";

describe("passkeys over HTTP (software authenticator: real ES256 keys, CBOR attestation, signed assertions)", () => {
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
});
