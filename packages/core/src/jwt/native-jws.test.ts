import { describe, expect, it, vi } from "vitest";
import { compactVerify, createLocalJWKSet, importJWK, jwtVerify, type JWK } from "jose";
import { memoryStore } from "@latchkey/memory-store";
import { createAuthCore } from "../auth/auth-core.ts";
import { createTestClock } from "../ports/clock.ts";
import { nativeJws } from "#native-jws";
import { nativeJws as webJws } from "./native-jws.web.ts";
import { JWT_PLUGIN_ID, jwt } from "./plugin.ts";
import type { NativeJws } from "./native-jws.ts";
import type { JwsAlgorithm, JwtClaims } from "./options.ts";
import { generateSigningKey, LocalSigner } from "./signing.ts";

// Counts KeyObject creations while keeping the real node:crypto signer.
const created = vi.hoisted(() => ({ count: 0 }));
vi.mock("#native-jws", async (importOriginal) => {
  const real = (await importOriginal<typeof import("./native-jws.ts") & { nativeJws: NativeJws | null }>()).nativeJws;
  // null passes through, so the "picked on Node" test below sees what the condition really resolved to.
  return {
    nativeJws: real && {
      encode: real.encode,
      signer: (jwk: JWK, alg: JwsAlgorithm) => {
        created.count++;
        return real.signer(jwk, alg);
      },
    },
  };
});

const SECRET = "core-test-secret-0123456789abcdefghijklmnop";
const ALGS: JwsAlgorithm[] = ["EdDSA", "ES256", "RS256", "PS256"];
const SUBTLE_VERIFY: Record<JwsAlgorithm, AlgorithmIdentifier | EcdsaParams | RsaPssParams> = {
  EdDSA: { name: "Ed25519" },
  ES256: { name: "ECDSA", hash: "SHA-256" },
  RS256: { name: "RSASSA-PKCS1-v1_5" },
  PS256: { name: "RSA-PSS", saltLength: 32 },
};
const SIGNATURE_BYTES: Record<JwsAlgorithm, number> = { EdDSA: 64, ES256: 64, RS256: 256, PS256: 256 };

const claims: JwtClaims = {
  sub: "user-1",
  sid: "session-1",
  email: "zoë@example.com",
  email_verified: true,
  iat: 1_700_000_000,
  exp: 1_700_000_900,
  iss: "https://app.example",
  aud: "https://app.example",
  name: "Zoë 🙂",
};

function sessionContext() {
  const at = new Date(0).toISOString();
  return {
    user: {
      id: "user-1",
      email: "ada@example.com",
      emailVerified: true,
      name: null,
      image: null,
      username: null,
      metadata: {},
      appMetadata: {},
      createdAt: at,
      updatedAt: at,
      banned: false,
      banReason: null,
      banExpires: null,
    },
    session: {
      id: "session-1",
      userId: "user-1",
      expiresAt: at,
      createdAt: at,
      updatedAt: at,
      ip: null,
      userAgent: null,
    },
  };
}

describe("#native-jws", () => {
  it("the node condition picks the node:crypto signer on Node; the web file is null (Web Crypto)", async () => {
    expect(nativeJws).not.toBeNull();
    expect(webJws).toBeNull();
    const { privateJwk } = await generateSigningKey("EdDSA", "kid-1");
    expect((await LocalSigner.fromPrivateJwk(privateJwk, "EdDSA", "kid-1")).engine).toBe("node");
    expect((await LocalSigner.fromPrivateJwk(privateJwk, "EdDSA", "kid-1", null)).engine).toBe("webcrypto");
  });

  for (const alg of ALGS) {
    it(`${alg}: a node:crypto token has the Web Crypto path's exact header and payload, and verifies with jose and crypto.subtle`, async () => {
      const { publicJwk, privateJwk } = await generateSigningKey(alg, "kid-1");
      const native = await LocalSigner.fromPrivateJwk(privateJwk, alg, "kid-1");
      const web = await LocalSigner.fromPrivateJwk(privateJwk, alg, "kid-1", null);
      expect([native.engine, web.engine]).toEqual(["node", "webcrypto"]);
      const a = await native.sign(claims);
      const b = await web.sign(claims);
      const [headerA, payloadA, sigA] = a.split(".");
      const [headerB, payloadB, sigB] = b.split(".");
      expect([headerA, payloadA]).toEqual([headerB, payloadB]);
      expect(Buffer.from(sigA!, "base64url")).toHaveLength(SIGNATURE_BYTES[alg]);
      // Ed25519 and PKCS#1 v1.5 are deterministic: both engines must produce the very same bytes.
      if (alg === "EdDSA" || alg === "RS256") expect(sigA).toBe(sigB);

      const publicKey = await importJWK({ ...publicJwk }, alg);
      for (const token of [a, b]) {
        const { payload, protectedHeader } = await jwtVerify(token, publicKey, {
          algorithms: [alg],
          currentDate: new Date(claims.iat * 1000),
        });
        expect(protectedHeader).toEqual({ alg, kid: "kid-1", typ: "JWT" });
        expect(payload).toEqual(claims);
      }
      const subtleKey = publicKey as CryptoKey;
      const input = new TextEncoder().encode(`${headerA}.${payloadA}`);
      expect(await crypto.subtle.verify(SUBTLE_VERIFY[alg], subtleKey, Buffer.from(sigA!, "base64url"), input)).toBe(
        true,
      );

      // Through the service: the /jwks document verifies what the node:crypto signer issued.
      const before = created.count;
      const core = createAuthCore({
        secret: SECRET,
        database: memoryStore(),
        baseUrl: "https://app.example",
        plugins: [jwt({ alg })],
      });
      const issued = await core.api.signJwt(sessionContext());
      expect(created.count - before).toBe(1);
      const verified = await jwtVerify(issued, createLocalJWKSet(await core.api.getJwks()), {
        algorithms: [alg],
        issuer: "https://app.example",
        audience: "https://app.example",
      });
      expect(verified.payload).toMatchObject({ sub: "user-1", sid: "session-1" });

      const forged = `${headerA}.${Buffer.from(JSON.stringify({ ...claims, sub: "admin" })).toString("base64url")}.${sigA}`;
      await expect(compactVerify(forged, publicKey, { algorithms: [alg] })).rejects.toThrow(
        /signature verification failed/,
      );
    }, 30_000);
  }

  it("refuses a public key, a key of another algorithm, and a too-short RSA key, on both engines", async () => {
    const ec = await generateSigningKey("ES256", "kid-ec");
    const ed = await generateSigningKey("EdDSA", "kid-ed");
    expect(() => nativeJws!.signer(ec.privateJwk, "EdDSA")).toThrow(/not a private EdDSA key/);
    expect(() => nativeJws!.signer(ed.privateJwk, "ES256")).toThrow(/not a private ES256 key/);
    expect(() => nativeJws!.signer(ec.privateJwk, "RS256")).toThrow(/not a private RS256 key/);
    expect(() => nativeJws!.signer({ ...ed.publicJwk } as JWK, "EdDSA")).toThrow();
    const short = await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign"],
    );
    const shortJwk = (await crypto.subtle.exportKey("jwk", short.privateKey)) as JWK;
    expect(() => nativeJws!.signer(shortJwk, "RS256")).toThrow(/not a private RS256 key/);
    for (const native of [nativeJws, null]) {
      await expect(LocalSigner.fromPrivateJwk({ ...ed.publicJwk } as JWK, "EdDSA", "kid-ed", native)).rejects.toThrow();
      await expect(LocalSigner.fromPrivateJwk(ec.privateJwk, "EdDSA", "kid-ec", native)).rejects.toThrow();
      await expect(LocalSigner.fromPrivateJwk(shortJwk, "RS256", "kid-rsa", native)).rejects.toThrow();
    }
  });

  it("the service builds one KeyObject per key: reused across signs and cache refreshes, rebuilt on rotation", async () => {
    const clock = createTestClock();
    const core = createAuthCore({
      secret: SECRET,
      database: memoryStore(),
      baseUrl: "https://app.example",
      clock,
      plugins: [jwt()],
    });
    const service = core.plugins.get(JWT_PLUGIN_ID)!.service;
    const before = created.count;
    const first = await service.sign(sessionContext());
    for (let i = 0; i < 20; i++) await service.sign(sessionContext());
    expect(created.count - before).toBe(1);
    clock.advance(61_000); // past keyCacheTtl: the store is re-read, the key is the same
    await service.sign(sessionContext());
    expect(created.count - before).toBe(1);
    const { kid } = await core.api.rotateJwks();
    const second = await service.sign(sessionContext());
    expect(created.count - before).toBe(2);
    expect(JSON.parse(Buffer.from(second.split(".")[0]!, "base64url").toString())).toEqual({
      alg: "EdDSA",
      kid,
      typ: "JWT",
    });
    expect(await core.api.verifyJwt(second)).toMatchObject({ sub: "user-1", sid: "session-1" });
    expect(await core.api.verifyJwt(first)).toMatchObject({ sub: "user-1" }); // the retired key is still published
  });
});
