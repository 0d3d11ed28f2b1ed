import { describe, expect, it, vi } from "vitest";
import { CompactSign, exportJWK, generateKeyPair, jwtVerify, type CryptoKey, type JWK } from "jose";
import { jwt, type JwtSigner, type JwtSignerFactory } from "@latchkey/core";
import { BASE_URL, bearer, createTestAuth } from "../../../test/test-auth.ts";
import { decodeParts, issueToken, PRIVATE_MEMBERS } from "../../../test/routes/jwt/test-fixtures.ts";

interface KmsKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
  privateJwk: JWK;
}

async function kmsKey(kid: string): Promise<KmsKey> {
  const pair = await generateKeyPair("ES256", { extractable: true });
  return { kid, ...pair, publicJwk: await exportJWK(pair.publicKey), privateJwk: await exportJWK(pair.privateKey) };
}

/** A stand-in for a key-management service: its own ES256 keys, a sign call, a public key listing. */
async function fakeKms(overrides: Partial<JwtSigner> = {}) {
  const state = { keys: [await kmsKey("kms-key-1")], signs: 0, factoryCalls: 0 };
  const current = () => state.keys[state.keys.length - 1]!;
  const factory: JwtSignerFactory = ({ alg }) => {
    state.factoryCalls++;
    expect(alg).toBe("ES256");
    return {
      currentKid: () => current().kid,
      async sign({ header, payload }) {
        state.signs++;
        return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
          .setProtectedHeader(header)
          .sign(current().privateKey);
      },
      async publicKeys() {
        return state.keys.map((k) => ({ ...k.publicJwk, kid: k.kid }));
      },
      ...overrides,
    };
  };
  return { state, current, factory, rotate: async (kid: string) => void state.keys.push(await kmsKey(kid)) };
}

describe("signerFactory", () => {
  it("signs /token and get-session JWTs with the custom signer and publishes its public key in /jwks", async () => {
    const kms = await fakeKms();
    const t = createTestAuth({ plugins: [jwt({ alg: "ES256", signerFactory: kms.factory })] });
    const { token, userId, session } = await issueToken(t);
    expect(kms.state.signs).toBe(1);
    expect(decodeParts(token).header).toEqual({ alg: "ES256", kid: "kms-key-1", typ: "JWT" });
    const { payload } = await jwtVerify(token, kms.current().publicKey, {
      issuer: BASE_URL,
      audience: BASE_URL,
      currentDate: new Date(t.clock.now()),
    });
    expect(payload.sub).toBe(userId);
    expect((await t.auth.api.verifyJwt(token)).sub).toBe(userId);

    const jwks = (await (await t.request("GET", "/jwks")).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys).toEqual([
      {
        kty: "EC",
        crv: "P-256",
        x: kms.current().publicJwk.x,
        y: kms.current().publicJwk.y,
        kid: "kms-key-1",
        alg: "ES256",
        use: "sig",
      },
    ]);
    expect(await t.store.jwks.list()).toEqual([]);

    const header = (await t.request("GET", "/get-session", { headers: bearer(session) })).headers.get("set-auth-jwt");
    expect((await t.auth.api.verifyJwt(header!)).sub).toBe(userId);
    expect(kms.state.signs).toBe(2);
    expect(kms.state.factoryCalls).toBe(1);
  });

  it("never publishes private members a careless signer lists", async () => {
    const kms = await fakeKms();
    const t = createTestAuth({
      plugins: [
        jwt({
          alg: "ES256",
          signerFactory: (ctx) => ({
            ...(kms.factory(ctx) as JwtSigner),
            publicKeys: async () => [{ ...kms.current().privateJwk, kid: "kms-key-1", k: "oops" }],
          }),
        }),
      ],
    });
    const { token } = await issueToken(t);
    const jwks = (await (await t.request("GET", "/jwks")).json()) as { keys: Array<Record<string, unknown>> };
    for (const member of PRIVATE_MEMBERS) expect(jwks.keys[0]).not.toHaveProperty(member);
    expect((await t.auth.api.verifyJwt(token)).sub).toBeTruthy();
  });

  it("picks up the signer's own rotation within the cache TTL; both keys verify", async () => {
    const kms = await fakeKms();
    const t = createTestAuth({ plugins: [jwt({ alg: "ES256", signerFactory: kms.factory })] });
    const { token: first, session } = await issueToken(t);
    await kms.rotate("kms-key-2");
    t.clock.advance(61_000);
    const res = await t.request("POST", "/token", { headers: bearer(session) });
    const { token: second } = (await res.json()) as { token: string };
    expect(decodeParts(second).header.kid).toBe("kms-key-2");
    expect(
      ((await (await t.request("GET", "/jwks")).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid),
    ).toEqual(["kms-key-1", "kms-key-2"]);
    expect((await t.auth.api.verifyJwt(first)).sub).toBeTruthy();
    expect((await t.auth.api.verifyJwt(second)).sub).toBeTruthy();
  });

  it("a misbehaving signer is a 500 with a message naming jwt.signerFactory, never a bad token", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const cases: Array<[string, Partial<JwtSigner>]> = [
      ["is not among publicKeys", { currentKid: () => "unpublished" }],
      [
        "header differs",
        {
          sign: async ({ payload }) =>
            `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.`,
        },
      ],
      ["compact JWS", { sign: async () => "not-a-jws" }],
    ];
    for (const [message, override] of cases) {
      const kms = await fakeKms(override);
      const t = createTestAuth({ plugins: [jwt({ alg: "ES256", signerFactory: kms.factory })] });
      const { token: session } = await t.signUp("ada@example.com");
      const res = await t.request("POST", "/token", { headers: bearer(session) });
      expect(res.status).toBe(500);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe("INTERNAL_ERROR");
      expect(body.message).toContain("jwt.signerFactory");
      expect(body.message).toContain(message);
    }
    errors.mockRestore();
  });

  it("a factory that fails is retried on the next call", async () => {
    const kms = await fakeKms();
    let attempts = 0;
    const t = createTestAuth({
      plugins: [
        jwt({
          alg: "ES256",
          signerFactory: (ctx) => (++attempts === 1 ? Promise.reject(new Error("KMS unreachable")) : kms.factory(ctx)),
        }),
      ],
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { token: session } = await t.signUp("ada@example.com");
    expect((await t.request("POST", "/token", { headers: bearer(session) })).status).toBe(500);
    errors.mockRestore();
    expect((await t.request("POST", "/token", { headers: bearer(session) })).status).toBe(200);
    expect(attempts).toBe(2);
  });

  it("rotateJwks refuses: the signer manages its keys", async () => {
    const kms = await fakeKms();
    const t = createTestAuth({ plugins: [jwt({ alg: "ES256", signerFactory: kms.factory })] });
    await expect(t.auth.api.rotateJwks()).rejects.toMatchObject({ code: "INVALID_REQUEST" });
  });
});
