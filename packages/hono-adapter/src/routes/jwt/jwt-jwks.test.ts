import { beforeAll, describe, expect, it } from "vitest";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { jwt, type JwtAlgorithm } from "@latchkey/core";
import { BASE_URL, createTestAuth } from "../../testing/test-auth.ts";
import { decodeParts, issueToken, PRIVATE_MEMBERS, pyjwtAvailable, startHttpServer, verifyWithPyJwt } from "./test-fixtures.ts";

const ALGS: Array<{ option: JwtAlgorithm; header: string; kty: string }> = [
  { option: "EdDSA", header: "EdDSA", kty: "OKP" },
  { option: "ES256", header: "ES256", kty: "EC" },
  { option: "RS256", header: "RS256", kty: "RSA" },
  { option: "PS256", header: "PS256", kty: "RSA" },
];

let hasPyJwt = false;
beforeAll(async () => {
  hasPyJwt = await pyjwtAvailable();
  if (!hasPyJwt) console.warn("SKIPPED: PyJWT checks need Debian's python3-jwt and python3-cryptography at /usr/bin/python3 (apt-get install -y python3-jwt python3-cryptography)");
});

describe("GET /jwks", () => {
  it("lists public keys with kid, alg and use, cacheable for 5 minutes", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token } = await issueToken(t);
    const res = await t.request("GET", "/jwks");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const { keys } = (await res.json()) as { keys: Array<Record<string, unknown>> };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", kid: decodeParts(token).header.kid, alg: "EdDSA", use: "sig" });
    expect(await t.auth.api.getJwks()).toEqual({ keys });
  });

  for (const { option, header, kty } of ALGS) {
    it(`${option}: a /token JWT verifies with createRemoteJWKSet over real HTTP and with PyJWT; the JWKS holds no private member`, async () => {
      const t = createTestAuth({ plugins: [jwt({ alg: option })] });
      const server = await startHttpServer(t.auth);
      try {
        const { token, userId } = await issueToken(t);
        expect(decodeParts(token).header.alg).toBe(header);
        const jwksUrl = `${server.url}/auth/jwks`;
        const jwks = (await (await fetch(jwksUrl)).json()) as { keys: Array<Record<string, unknown>> };
        expect(jwks.keys[0]).toMatchObject({ kty, alg: header, use: "sig" });
        for (const key of jwks.keys) for (const member of PRIVATE_MEMBERS) expect(key).not.toHaveProperty(member);

        const remote = createRemoteJWKSet(new URL(jwksUrl));
        const { payload } = await jwtVerify(token, remote, { algorithms: [header], issuer: BASE_URL, audience: BASE_URL, currentDate: new Date(t.clock.now()) });
        expect(payload.sub).toBe(userId);

        if (!hasPyJwt) return;
        // PyJWT checks exp against the real clock: issue one at real time for it.
        t.clock.set(Date.now());
        const fresh = await issueToken(t, "grace@example.com");
        const verified = await verifyWithPyJwt(jwksUrl, fresh.token, header, BASE_URL, BASE_URL);
        expect(verified.reason).toBe("");
        expect(verified.claims).toMatchObject({ sub: fresh.userId, email: "grace@example.com", iss: BASE_URL, aud: BASE_URL });
        const [h, , s] = fresh.token.split(".");
        const forged = `${h}.${Buffer.from(JSON.stringify({ ...decodeParts(fresh.token).payload, sub: "admin" })).toString("base64url")}.${s}`;
        expect((await verifyWithPyJwt(jwksUrl, forged, header, BASE_URL, BASE_URL)).claims).toBeNull();
        expect((await verifyWithPyJwt(jwksUrl, fresh.token, header, BASE_URL, "https://other.example")).claims).toBeNull();
      } finally {
        await server.close();
      }
    }, 30_000);
  }
});
