import { describe, expect, it } from "vitest";
import { bearer } from "../../../test/test-auth.ts";
import { b64url, SoftwareAuthenticator, type Cbor } from "@latchkey/test-support/software-authenticator";
import { b64decode, ORIGIN, setup } from "../../../test/routes/passkey/fixtures.ts";

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
