import { afterEach, describe, expect, it, vi } from "vitest";
import { jwt } from "@latchkey/core";
import { bearer, createTestAuth, TEST_SECRET } from "../../../test/test-auth.ts";
import {
  countingStore,
  decodeParts,
  issueToken,
  publishedKids,
  tokenOf,
} from "../../../test/routes/jwt/test-fixtures.ts";

afterEach(() => vi.restoreAllMocks());

describe("private keys at rest", () => {
  it("are stored as an AES-256-GCM envelope, never as the plain JWK", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    await issueToken(t);
    const [row] = await t.store.jwks.list();
    expect(row!.privateKey).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{40,}$/);
    expect(() => JSON.parse(row!.privateKey)).toThrow();
    expect(row!.privateKey).not.toContain('"d"');
    expect(JSON.parse(row!.publicKey)).not.toHaveProperty("d");
  });

  it("are the plain private JWK with disablePrivateKeyEncryption, and still sign", async () => {
    const t = createTestAuth({ plugins: [jwt({ disablePrivateKeyEncryption: true })] });
    const { token } = await issueToken(t);
    const [row] = await t.store.jwks.list();
    expect(JSON.parse(row!.privateKey)).toMatchObject({ kty: "OKP", crv: "Ed25519", d: expect.any(String) });
    expect((await t.auth.api.verifyJwt(token)).sub).toBeTruthy();
  });
});

describe("first use", () => {
  it("20 parallel first /token calls create exactly one key", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token: session } = await t.signUp("ada@example.com");
    const tokens = await Promise.all(
      Array.from({ length: 20 }, () => t.request("POST", "/token", { headers: bearer(session) }).then(tokenOf)),
    );
    expect(await t.store.jwks.list()).toHaveLength(1);
    expect(new Set(tokens.map((tk) => decodeParts(tk).header.kid)).size).toBe(1);
  });

  it("race: 4 instances on one store, 5 parallel first calls each, still create exactly one key", async () => {
    const { store, calls } = countingStore();
    const first = createTestAuth({ store, plugins: [jwt()] });
    const instances = [
      first,
      ...Array.from({ length: 3 }, () => createTestAuth({ store, clock: first.clock, plugins: [jwt()] })),
    ];
    const { token: session } = await first.signUp("ada@example.com");
    const tokens = await Promise.all(
      instances.flatMap((t) =>
        Array.from({ length: 5 }, () => t.request("POST", "/token", { headers: bearer(session) }).then(tokenOf)),
      ),
    );
    const rows = await first.store.jwks.list();
    // Several instances really tried to insert generation 1; the store let one win.
    expect(calls.insert).toBeGreaterThan(1);
    expect(rows).toHaveLength(1);
    expect(new Set(tokens.map((tk) => decodeParts(tk).header.kid))).toEqual(new Set([rows[0]!.id]));
    for (const t of instances) for (const tk of tokens) expect((await t.auth.api.verifyJwt(tk)).sub).toBeTruthy();
  });
});

describe("hot path", () => {
  it("steady-state signing does no store read, no decrypt and no key import", async () => {
    const { store, calls } = countingStore();
    const t = createTestAuth({ store, plugins: [jwt()] });
    const { session } = await issueToken(t);
    expect(calls).toEqual({ list: 2, insert: 1 });
    const decrypt = vi.spyOn(crypto.subtle, "decrypt");
    const importKey = vi.spyOn(crypto.subtle, "importKey");
    for (let i = 0; i < 20; i++) {
      await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
      expect(
        (await t.request("GET", "/get-session", { headers: bearer(session) })).headers.get("set-auth-jwt"),
      ).toBeTruthy();
      expect((await t.request("GET", "/jwks")).status).toBe(200);
    }
    expect(calls).toEqual({ list: 2, insert: 1 });
    // Past the cache TTL: one re-read of the store, and the already-imported key is reused.
    t.clock.advance(61_000);
    await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
    await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
    expect(calls).toEqual({ list: 3, insert: 1 });
    expect(decrypt).not.toHaveBeenCalled();
    expect(importKey).not.toHaveBeenCalled();
  });

  it("a fresh instance decrypts the stored key once, then signs from memory", async () => {
    const first = createTestAuth({ plugins: [jwt()] });
    const { session } = await issueToken(first);
    const decrypt = vi.spyOn(crypto.subtle, "decrypt");
    const second = createTestAuth({ store: first.store, clock: first.clock, plugins: [jwt()] });
    for (let i = 0; i < 5; i++) await tokenOf(await second.request("GET", "/token", { headers: bearer(session) }));
    expect(decrypt).toHaveBeenCalledTimes(1);
  });
});

describe("changed secret", () => {
  it("gives JWT_KEY_UNREADABLE (not a crash), keeps get-session and /jwks up, and rotateJwks({ force: true }) recovers", async () => {
    const before = createTestAuth({ plugins: [jwt()] });
    const { token: oldToken, session } = await issueToken(before);
    const after = createTestAuth({
      store: before.store,
      clock: before.clock,
      secret: `${TEST_SECRET}-rotated`,
      plugins: [jwt()],
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);

    for (let i = 0; i < 3; i++) {
      const res = await after.request("POST", "/token", { headers: bearer(session) });
      expect(res.status).toBe(500);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe("JWT_KEY_UNREADABLE");
      expect(body.message).toContain("rotateJwks({ force: true })");
    }
    expect(await before.store.jwks.list()).toHaveLength(1);
    const got = await after.request("GET", "/get-session", { headers: bearer(session) });
    expect(got.status).toBe(200);
    expect(got.headers.get("set-auth-jwt")).toBeNull();
    expect(errors).toHaveBeenCalled();
    expect(await publishedKids(after)).toEqual([decodeParts(oldToken).header.kid]);
    expect((await after.auth.api.verifyJwt(oldToken)).sub).toBeTruthy();

    await expect(after.auth.api.rotateJwks()).rejects.toMatchObject({ code: "JWT_KEY_UNREADABLE" });
    expect(await before.store.jwks.list()).toHaveLength(1);
    const { kid } = await after.auth.api.rotateJwks({ force: true });
    const fresh = await tokenOf(await after.request("POST", "/token", { headers: bearer(session) }));
    expect(decodeParts(fresh).header.kid).toBe(kid);
    expect(await publishedKids(after)).toEqual([kid, decodeParts(oldToken).header.kid]);
    expect((await after.auth.api.verifyJwt(oldToken)).sub).toBeTruthy();
    expect(
      (await after.request("GET", "/get-session", { headers: bearer(session) })).headers.get("set-auth-jwt"),
    ).toBeTruthy();
  });
});
