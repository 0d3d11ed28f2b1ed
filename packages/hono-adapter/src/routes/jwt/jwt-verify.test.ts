import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { exportSPKI, generateKeyPair, importJWK, SignJWT, type JWK } from "jose";
import { AuthError, jwt, type FullStore, type JwtApi } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { BASE_URL, createTestAuth, type TestAuthWith } from "../../../test/test-auth.ts";
import { errorResponse } from "../../http/errors.ts";
import { decodeParts, issueToken } from "../../../test/routes/jwt/test-fixtures.ts";

const b64 = (value: unknown) =>
  Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

/** A resource server in the same process: verifies the Bearer JWT with auth.api.verifyJwt. */
function resourceServer(t: TestAuthWith<JwtApi>) {
  const app = new Hono();
  app.use("*", t.auth.middleware);
  app.onError((error) => errorResponse(error));
  app.get("/api/me", async (c) => {
    const claims = await t.auth.api.verifyJwt((c.req.header("authorization") ?? "").replace(/^Bearer /, ""));
    return c.json({ sub: claims.sub });
  });
  return async (token: string) => app.request(`${BASE_URL}/api/me`, { headers: { authorization: `Bearer ${token}` } });
}

async function expectInvalid(t: TestAuthWith<JwtApi>, token: string, message?: RegExp): Promise<void> {
  const error = await t.auth.api.verifyJwt(token).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthError);
  expect((error as AuthError).code).toBe("INVALID_JWT");
  if (message) expect((error as AuthError).message).toMatch(message);
  const res = await resourceServer(t)(token);
  expect(res.status).toBe(401);
  expect(((await res.json()) as { code: string }).code).toBe("INVALID_JWT");
}

/** An auth whose stored private key is readable, so tests can sign arbitrary tokens with the real key. */
async function withReadableKey() {
  const t = createTestAuth({ plugins: [jwt({ disablePrivateKeyEncryption: true })] });
  const issued = await issueToken(t);
  const [row] = await t.store.jwks.list();
  const privateJwk = JSON.parse(row!.privateKey) as JWK;
  const signWithRealKey = (payload: Record<string, unknown>, header: Record<string, unknown> = {}) =>
    new SignJWT(payload).setProtectedHeader({ alg: "EdDSA", kid: row!.id, typ: "JWT", ...header }).sign(privateJwk);
  return { t, ...issued, kid: row!.id, publicJwk: JSON.parse(row!.publicKey) as JWK, signWithRealKey };
}

describe("verifyJwt accepts", () => {
  it("a /token JWT, over the resource-server route too", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token, userId } = await issueToken(t);
    expect((await t.auth.api.verifyJwt(token)).sub).toBe(userId);
    const res = await resourceServer(t)(token);
    expect(await res.json()).toEqual({ sub: userId });
  });
});

describe("verifyJwt rejects with INVALID_JWT (401, never 5xx)", () => {
  it("attack: tampered payload (sub swapped, signature kept)", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token } = await issueToken(t);
    const [h, , s] = token.split(".");
    await expectInvalid(t, `${h}.${b64({ ...decodeParts(token).payload, sub: "admin" })}.${s}`, /signature/);
    await expectInvalid(t, `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`);
  });

  it("attack: alg none (unsigned token with a valid kid)", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token } = await issueToken(t);
    const { header, payload } = decodeParts(token);
    await expectInvalid(t, `${b64({ ...header, alg: "none" })}.${b64(payload)}.`, /not allowed/);
    await expectInvalid(t, `${b64({ ...header, alg: "none" })}.${b64(payload)}`);
  });

  it("attack: algorithm confusion, HS256 keyed with the public key (JWK JSON, raw x, SPKI PEM)", async () => {
    const { t, token, kid, publicJwk } = await withReadableKey();
    const { payload } = decodeParts(token);
    const spki = await exportSPKI((await importJWK(publicJwk, "EdDSA")) as CryptoKey);
    const secrets = [
      new TextEncoder().encode(JSON.stringify(publicJwk)),
      Buffer.from(publicJwk.x!, "base64url"),
      new TextEncoder().encode(spki),
      new TextEncoder().encode(JSON.stringify((await t.auth.api.getJwks()).keys[0])),
    ];
    for (const secret of secrets) {
      const forged = await new SignJWT(payload).setProtectedHeader({ alg: "HS256", kid, typ: "JWT" }).sign(secret);
      await expectInvalid(t, forged, /not allowed/);
    }
  });

  it("attack: a key the service does not publish (unknown kid, and a real kid with a foreign key)", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token } = await issueToken(t);
    const { header, payload } = decodeParts(token);
    const attacker = await generateKeyPair("EdDSA");
    await expectInvalid(
      t,
      await new SignJWT(payload)
        .setProtectedHeader({ alg: "EdDSA", kid: "attacker", typ: "JWT" })
        .sign(attacker.privateKey),
      /unknown key/,
    );
    await expectInvalid(
      t,
      await new SignJWT(payload)
        .setProtectedHeader({ alg: "EdDSA", kid: header.kid as string, typ: "JWT" })
        .sign(attacker.privateKey),
      /signature/,
    );
    await expectInvalid(
      t,
      await new SignJWT(payload).setProtectedHeader({ alg: "EdDSA", typ: "JWT" }).sign(attacker.privateKey),
      /key id/,
    );
  });

  it("expired tokens (clock moved past exp), and not before", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token } = await issueToken(t);
    t.clock.advance(15 * 60_000 - 1000);
    expect((await t.auth.api.verifyJwt(token)).sub).toBeTruthy();
    t.clock.advance(2000);
    await expectInvalid(t, token, /expired/);
  });

  it("wrong iss or aud (a token from an instance with other claims, same keys)", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { session } = await issueToken(t);
    for (const [claim, options] of [
      ["iss", { issuer: "https://other.example" }],
      ["aud", { audience: "https://other.example" }],
    ] as const) {
      const other = createTestAuth({ store: t.store, clock: t.clock, plugins: [jwt(options)] });
      const res = await other.request("POST", "/token", { headers: { authorization: `Bearer ${session}` } });
      const { token } = (await res.json()) as { token: string };
      expect((await other.auth.api.verifyJwt(token)).sub).toBeTruthy();
      await expectInvalid(t, token, new RegExp(claim));
    }
  });

  it("tokens signed by the real key but with the wrong typ or without sub/sid", async () => {
    const { t, token, signWithRealKey } = await withReadableKey();
    const { payload } = decodeParts(token);
    expect((await t.auth.api.verifyJwt(await signWithRealKey(payload))).sub).toBe(payload.sub);
    await expectInvalid(t, await signWithRealKey(payload, { typ: "at+jwt" }));
    const { sub: _sub, ...noSub } = payload;
    await expectInvalid(t, await signWithRealKey(noSub), /sub/);
    const { sid: _sid, ...noSid } = payload;
    await expectInvalid(t, await signWithRealKey(noSid), /sid/);
  });

  it("malformed input of every shape", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    await issueToken(t);
    for (const bad of ["", "abc", "a.b.c", "..", "e30.e30.", `${b64("{")}.${b64({})}.x`, "x".repeat(20_000)])
      await expectInvalid(t, bad);
    for (const bad of [undefined, null, 42, {}])
      await expect(t.auth.api.verifyJwt(bad as never)).rejects.toMatchObject({ code: "INVALID_JWT" });
  });

  it("attack: forged kids cannot make every verification re-read the store", async () => {
    const inner = memoryStore();
    let lists = 0;
    const store: FullStore = { ...inner, jwks: { ...inner.jwks, list: () => (lists++, inner.jwks.list()) } };
    const t = createTestAuth({ store, plugins: [jwt()] });
    const { payload } = decodeParts((await issueToken(t)).token);
    const attacker = await generateKeyPair("EdDSA");
    const before = lists;
    for (let i = 0; i < 25; i++) {
      await expect(
        t.auth.api.verifyJwt(
          await new SignJWT(payload)
            .setProtectedHeader({ alg: "EdDSA", kid: `forged-${i}`, typ: "JWT" })
            .sign(attacker.privateKey),
        ),
      ).rejects.toMatchObject({ code: "INVALID_JWT" });
    }
    expect(lists - before).toBe(1);
  });
});
