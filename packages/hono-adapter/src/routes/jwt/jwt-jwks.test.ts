import { describe, expect, it } from "vitest";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { jwt, type JwtAlgorithm } from "@latchkey/core";
import { BASE_URL, createTestAuth } from "../../../test/test-auth.ts";
import {
  decodeParts,
  issueToken,
  PRIVATE_MEMBERS,
  pyjwtAvailable,
  startHttpServer,
  verifyWithPyJwt,
} from "../../../test/routes/jwt/test-fixtures.ts";

const ALGS: Array<{ option: JwtAlgorithm; header: string; kty: string }> = [
  { option: "EdDSA", header: "EdDSA", kty: "OKP" },
  { option: "ES256", header: "ES256", kty: "EC" },
  { option: "RS256", header: "RS256", kty: "RSA" },
  { option: "PS256", header: "PS256", kty: "RSA" },
];

const hasPyJwt = await pyjwtAvailable();
const MISSING_PYJWT =
  "SKIPPED: Debian's python3-jwt / python3-cryptography are not importable by /usr/bin/python3 (apt-get install -y python3-jwt python3-cryptography)";
if (!hasPyJwt) console.warn(MISSING_PYJWT);

describe("GET /jwks", () => {
  it("lists public keys with kid, alg and use, cacheable for keyCacheTtl (60 s) and not marked public", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token } = await issueToken(t);
    const res = await t.request("GET", "/jwks");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("max-age=60");
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const { keys } = (await res.json()) as { keys: Array<Record<string, unknown>> };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      kty: "OKP",
      crv: "Ed25519",
      kid: decodeParts(token).header.kid,
      alg: "EdDSA",
      use: "sig",
    });
    expect(await t.auth.api.getJwks()).toEqual({ keys });
  });

  for (const { option, header, kty } of ALGS) {
    it(`${option}: a /token JWT verifies with createRemoteJWKSet over real HTTP; the JWKS holds no private member`, async () => {
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
        const { payload } = await jwtVerify(token, remote, {
          algorithms: [header],
          issuer: BASE_URL,
          audience: BASE_URL,
          currentDate: new Date(t.clock.now()),
        });
        expect(payload.sub).toBe(userId);
      } finally {
        await server.close();
      }
    }, 30_000);

    it.skipIf(!hasPyJwt)(
      `${option}: PyJWT (outside the JS stack) verifies it against /jwks with iss and aud, and rejects a forgery${hasPyJwt ? "" : ` [${MISSING_PYJWT}]`}`,
      async () => {
        // PyJWT checks exp and iat against the real clock, so this auth runs at real time.
        const t = createTestAuth({ plugins: [jwt({ alg: option })] });
        t.clock.set(Date.now());
        const server = await startHttpServer(t.auth);
        try {
          const jwksUrl = `${server.url}/auth/jwks`;
          const { token, userId } = await issueToken(t);
          const verified = await verifyWithPyJwt(jwksUrl, token, header, BASE_URL, BASE_URL);
          expect(verified.reason).toBe("");
          expect(verified.claims).toMatchObject({
            sub: userId,
            email: "ada@example.com",
            iss: BASE_URL,
            aud: BASE_URL,
          });
          const [h, , s] = token.split(".");
          const forged = `${h}.${Buffer.from(JSON.stringify({ ...decodeParts(token).payload, sub: "admin" })).toString("base64url")}.${s}`;
          expect((await verifyWithPyJwt(jwksUrl, forged, header, BASE_URL, BASE_URL)).reason).toMatch(/Signature/i);
          expect((await verifyWithPyJwt(jwksUrl, token, header, BASE_URL, "https://other.example")).reason).toMatch(
            /audience/i,
          );
          expect((await verifyWithPyJwt(jwksUrl, token, header, "https://other.example", BASE_URL)).reason).toMatch(
            /issuer/i,
          );
        } finally {
          await server.close();
        }
      },
      30_000,
    );
  }
});
