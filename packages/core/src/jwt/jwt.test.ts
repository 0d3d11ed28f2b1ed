import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { AuthConfigError } from "../errors/errors.ts";
import { createAuthCore } from "../auth/auth-core.ts";
import { createTestClock, webCryptoRandom } from "../ports/clock.ts";
import { argon2idHasher } from "../password/argon2.ts";
import { KeyEnvelope } from "./key-envelope.ts";
import { JWT_PLUGIN_ID, jwt } from "./plugin.ts";
import type { JwtOptions } from "./options.ts";
import { resolveJwtOptions } from "./options.ts";
import { toPublicJwk } from "./signing.ts";

const SECRET = "core-test-secret-0123456789abcdefghijklmnop";

function configError(options: unknown): AuthConfigError {
  try {
    jwt(options as JwtOptions);
  } catch (error) {
    if (error instanceof AuthConfigError) return error;
    throw error;
  }
  throw new Error("jwt() accepted the options");
}

describe("jwt() options", () => {
  it("defaults: EdDSA, 15 minutes, rotation every 90 days, 30 days of grace, 60 s cache, /jwks and /token", () => {
    expect(resolveJwtOptions()).toMatchObject({
      alg: "EdDSA",
      expiresInSeconds: 900,
      issuer: null,
      audience: null,
      rotationIntervalMs: 90 * 86_400_000,
      gracePeriodMs: 30 * 86_400_000,
      keyCacheTtlMs: 60_000,
      disableSettingJwtHeader: false,
      disablePrivateKeyEncryption: false,
      jwksPath: "/jwks",
      tokenPath: "/token",
      payloadBuilder: null,
      signerFactory: null,
    });
    expect(resolveJwtOptions({ alg: "Ed25519" }).alg).toBe("EdDSA");
    expect(resolveJwtOptions({ rotationInterval: false }).rotationIntervalMs).toBeNull();
  });

  it.each([
    [{ alg: "HS256" }, "jwt.alg"],
    [{ alg: "none" }, "jwt.alg"],
    [{ alg: "toString" }, "jwt.alg"],
    [{ expiresIn: "soon" }, "jwt.expiresIn"],
    [{ expiresIn: 0.5 }, "jwt.expiresIn"],
    [{ issuer: "" }, "jwt.issuer"],
    [{ audience: [] }, "jwt.audience"],
    [{ audience: ["a", ""] }, "jwt.audience[1]"],
    [{ rotationInterval: "30s" }, "jwt.rotationInterval"],
    [{ expiresIn: "1h", gracePeriod: "1h" }, "jwt.gracePeriod"],
    [{ gracePeriod: "15m" }, "jwt.gracePeriod"],
    [{ keyCacheTtl: -1 }, "jwt.keyCacheTtl"],
    [{ disableSettingJwtHeader: "yes" }, "jwt.disableSettingJwtHeader"],
    [{ disablePrivateKeyEncryption: 1 }, "jwt.disablePrivateKeyEncryption"],
    [{ jwksPath: "jwks" }, "jwt.jwksPath"],
    [{ jwksPath: "/keys/:id" }, "jwt.jwksPath"],
    [{ tokenPath: "//evil" }, "jwt.tokenPath"],
    [{ tokenPath: "/jwks" }, "jwt.tokenPath"],
    [{ payloadBuilder: {} }, "jwt.payloadBuilder"],
    [{ signerFactory: "kms" }, "jwt.signerFactory"],
    [{ signerFactory: (): null => null, rotationInterval: "1d" }, "jwt.rotationInterval"],
    [{ signerFactory: (): null => null, disablePrivateKeyEncryption: true }, "jwt.disablePrivateKeyEncryption"],
    [{ expiresin: "5m" }, "jwt.expiresin"],
  ])("rejects %j naming %s", (options, field) => {
    expect(configError(options).field).toBe(field);
  });

  it("issuer and audience fall back to baseUrl when the plugin starts", () => {
    const core = createAuthCore({
      secret: SECRET,
      database: memoryStore(),
      baseUrl: "https://app.example/",
      plugins: [jwt()],
    });
    expect(core.plugins.get(JWT_PLUGIN_ID)!.options).toMatchObject({
      issuer: "https://app.example",
      audience: "https://app.example",
    });
  });
});

describe("KeyEnvelope (private keys at rest)", () => {
  const envelope = new KeyEnvelope(SECRET, webCryptoRandom);

  it("round-trips, with a fresh 96-bit IV every time", async () => {
    const a = await envelope.seal("key-1", '{"d":"secret"}');
    const b = await envelope.seal("key-1", '{"d":"secret"}');
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(a.split(".")[1]).not.toBe(b.split(".")[1]);
    expect(a).not.toContain("secret");
    expect(await envelope.open("key-1", a)).toBe('{"d":"secret"}');
    expect(KeyEnvelope.isSealed(a)).toBe(true);
    expect(KeyEnvelope.isSealed('{"kty":"OKP"}')).toBe(false);
  });

  it("does not open under another secret, for another key id, or when tampered", async () => {
    const sealed = await envelope.seal("key-1", '{"d":"secret"}');
    await expect(new KeyEnvelope(`${SECRET}x`, webCryptoRandom).open("key-1", sealed)).rejects.toThrow();
    await expect(envelope.open("key-2", sealed)).rejects.toThrow();
    const [v, iv, body] = sealed.split(".");
    const flipped = `${body!.slice(0, 5)}${body![5] === "A" ? "B" : "A"}${body!.slice(6)}`;
    await expect(envelope.open("key-1", `${v}.${iv}.${flipped}`)).rejects.toThrow();
    for (const bad of ["v1", "v1..", "v2.AAAAAAAAAAAAAAAA.AAAA", `${sealed}.x`, "v1.short.AAAAAAAAAAAAAAAAAAAAAAAA"]) {
      await expect(envelope.open("key-1", bad)).rejects.toThrow();
    }
  });
});

describe("toPublicJwk", () => {
  it("keeps only public members and sets kid, alg, use", () => {
    const rsa = {
      kty: "RSA",
      n: "n",
      e: "AQAB",
      d: "d",
      p: "p",
      q: "q",
      dp: "dp",
      dq: "dq",
      qi: "qi",
      k: "k",
      kid: "ignored",
      ext: true,
      key_ops: ["sign"],
    };
    expect(toPublicJwk(rsa, "kid-1", "RS256")).toEqual({
      kty: "RSA",
      n: "n",
      e: "AQAB",
      kid: "kid-1",
      alg: "RS256",
      use: "sig",
    });
    expect(toPublicJwk({ crv: "Ed25519" }, "kid-1", "EdDSA")).toBeNull();
    expect(toPublicJwk({ kty: "OKP" }, "", "EdDSA")).toBeNull();
  });
});

describe("JwtService without HTTP", () => {
  it("auth.api signs for a session from getSession and verifies it; the injected clock drives exp", async () => {
    const clock = createTestClock();
    const core = createAuthCore({
      secret: SECRET,
      database: memoryStore(),
      baseUrl: "https://app.example",
      clock,
      passwordHasher: argon2idHasher({
        random: webCryptoRandom,
        params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
      }),
      plugins: [jwt({ expiresIn: "1m" })],
    });
    const signedUp = await core.api.signUp({ email: "ada@example.com", password: "correct horse battery" });
    if (!("credentials" in signedUp)) throw new Error("expected a session");
    const session = await core.api.getSession(signedUp.credentials.token);
    const token = await core.api.signJwt(session!);
    expect(await core.api.verifyJwt(token)).toMatchObject({
      sub: signedUp.user.id,
      sid: signedUp.session.id,
      email: "ada@example.com",
      exp: Math.floor(clock.now() / 1000) + 60,
    });
    expect((await core.api.getJwks()).keys).toHaveLength(1);
    clock.advance(61_000);
    await expect(core.api.verifyJwt(token)).rejects.toMatchObject({
      code: "INVALID_JWT",
      message: "The JWT has expired",
    });
  });
});
