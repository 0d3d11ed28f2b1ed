import { afterEach, describe, expect, it, vi } from "vitest";
import { jwt, type Store } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { bearer, createTestAuth, TEST_SECRET } from "../../testing/test-auth.ts";
import { decodeParts, issueToken } from "./test-fixtures.ts";

const DAY = 86_400_000;

/** The memory store with counters on the key port, to prove what the hot path does not do. */
function countingStore(): { store: Store; calls: { list: number; insert: number } } {
  const inner = memoryStore();
  const calls = { list: 0, insert: 0 };
  const jwks: Store["jwks"] = {
    ...inner.jwks,
    list: () => (calls.list++, inner.jwks.list()),
    insert: (record) => (calls.insert++, inner.jwks.insert(record)),
  };
  return { store: { ...inner, jwks }, calls };
}

async function tokenOf(res: Response): Promise<string> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

async function kids(t: ReturnType<typeof createTestAuth>): Promise<string[]> {
  return ((await (await t.request("GET", "/jwks")).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
}

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
    const tokens = await Promise.all(Array.from({ length: 20 }, () => t.request("POST", "/token", { headers: bearer(session) }).then(tokenOf)));
    expect(await t.store.jwks.list()).toHaveLength(1);
    expect(new Set(tokens.map((tk) => decodeParts(tk).header.kid)).size).toBe(1);
  });

  it("race: 4 instances on one store, 5 parallel first calls each, still create exactly one key", async () => {
    const { store, calls } = countingStore();
    const first = createTestAuth({ store, plugins: [jwt()] });
    const instances = [first, ...Array.from({ length: 3 }, () => createTestAuth({ store, clock: first.clock, plugins: [jwt()] }))];
    const { token: session } = await first.signUp("ada@example.com");
    const tokens = await Promise.all(instances.flatMap((t) => Array.from({ length: 5 }, () => t.request("POST", "/token", { headers: bearer(session) }).then(tokenOf))));
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
      expect((await t.request("GET", "/get-session", { headers: bearer(session) })).headers.get("set-auth-jwt")).toBeTruthy();
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

describe("rotation", () => {
  it("a new kid after rotationInterval; both keys listed during gracePeriod; only the new one after", async () => {
    const t = createTestAuth({ plugins: [jwt({ rotationInterval: "1d", gracePeriod: "12h" })] });
    const { token: first, session } = await issueToken(t);
    const oldKid = decodeParts(first).header.kid as string;
    t.clock.advance(DAY - 60_000);
    const lastOld = await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
    expect(decodeParts(lastOld).header.kid).toBe(oldKid);

    t.clock.advance(60_000);
    const rotated = await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
    const newKid = decodeParts(rotated).header.kid as string;
    expect(newKid).not.toBe(oldKid);
    expect(await kids(t)).toEqual([newKid, oldKid]);
    const rows = await t.store.jwks.list();
    expect(rows.find((r) => r.id === oldKid)!.retiredAt).toEqual(new Date(t.clock.now()));
    expect(rows.find((r) => r.id === newKid)!.retiredAt).toBeNull();
    // A token signed a minute before the rotation still verifies with the retired key.
    expect((await t.auth.api.verifyJwt(lastOld)).sub).toBeTruthy();

    t.clock.advance(DAY / 2 - 1000);
    expect(await kids(t)).toEqual([newKid, oldKid]);
    t.clock.advance(2000);
    expect(await kids(t)).toEqual([newKid]);
    expect((await t.store.jwks.list()).map((r) => r.id)).toEqual([newKid]);
    expect(decodeParts(await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }))).header.kid).toBe(newKid);
  });

  it("concurrent instances rotating at once create one new generation", async () => {
    const first = createTestAuth({ plugins: [jwt({ rotationInterval: "1d" })] });
    const others = Array.from({ length: 3 }, () => createTestAuth({ store: first.store, clock: first.clock, plugins: [jwt({ rotationInterval: "1d" })] }));
    const { session } = await issueToken(first);
    for (const t of others) await tokenOf(await t.request("POST", "/token", { headers: bearer(session) }));
    first.clock.advance(DAY);
    const tokens = await Promise.all([first, ...others].flatMap((t) => [1, 2, 3].map(() => t.request("POST", "/token", { headers: bearer(session) }).then(tokenOf))));
    const rows = await first.store.jwks.list();
    expect(rows).toHaveLength(2);
    expect(rows.filter((r) => r.retiredAt === null)).toHaveLength(1);
    expect(new Set(tokens.map((tk) => decodeParts(tk).header.kid))).toEqual(new Set([rows.find((r) => r.retiredAt === null)!.id]));
  });

  it("a second instance on the same store sees a rotation within the cache TTL", async () => {
    const a = createTestAuth({ plugins: [jwt()] });
    const b = createTestAuth({ store: a.store, clock: a.clock, plugins: [jwt()] });
    const { token, session } = await issueToken(a);
    const oldKid = decodeParts(token).header.kid;
    expect(decodeParts(await tokenOf(await b.request("POST", "/token", { headers: bearer(session) }))).header.kid).toBe(oldKid);

    const { kid: newKid } = await a.auth.api.rotateJwks();
    expect(newKid).not.toBe(oldKid);
    expect(decodeParts(await tokenOf(await a.request("POST", "/token", { headers: bearer(session) }))).header.kid).toBe(newKid);
    a.clock.advance(60_000);
    expect(decodeParts(await tokenOf(await b.request("POST", "/token", { headers: bearer(session) }))).header.kid).toBe(newKid);
    expect(await kids(b)).toEqual([newKid, oldKid]);
  });

  it("an instance verifies another instance's brand-new key at once (one refresh on an unknown kid)", async () => {
    const a = createTestAuth({ plugins: [jwt()] });
    const b = createTestAuth({ store: a.store, clock: a.clock, plugins: [jwt()] });
    const { session } = await issueToken(a);
    await b.auth.api.getJwks();
    await a.auth.api.rotateJwks();
    const fresh = await tokenOf(await a.request("POST", "/token", { headers: bearer(session) }));
    expect((await b.auth.api.verifyJwt(fresh)).sid).toBeTruthy();
  });

  it("a creator that stopped between insert and retire is healed by the next reader", async () => {
    const inner = memoryStore();
    let failRetire = false;
    const store: Store = { ...inner, jwks: { ...inner.jwks, retireOthers: (id, at) => (failRetire ? Promise.reject(new Error("connection lost")) : inner.jwks.retireOthers(id, at)) } };
    const a = createTestAuth({ store, plugins: [jwt()] });
    const { token, session } = await issueToken(a);
    failRetire = true;
    await expect(a.auth.api.rotateJwks()).rejects.toThrow("connection lost");
    failRetire = false;
    expect((await inner.jwks.list()).filter((r) => r.retiredAt === null)).toHaveLength(2);
    const b = createTestAuth({ store, clock: a.clock, plugins: [jwt()] });
    const fresh = await tokenOf(await b.request("POST", "/token", { headers: bearer(session) }));
    const rows = await inner.jwks.list();
    expect(rows.filter((r) => r.retiredAt === null).map((r) => r.id)).toEqual([decodeParts(fresh).header.kid]);
    expect(rows.find((r) => r.id === decodeParts(token).header.kid)!.retiredAt).toEqual(new Date(a.clock.now()));
  });

  it("changing alg rotates to a key of the new algorithm; the old key stays listed", async () => {
    const a = createTestAuth({ plugins: [jwt()] });
    const { session, token } = await issueToken(a);
    const b = createTestAuth({ store: a.store, clock: a.clock, plugins: [jwt({ alg: "ES256" })] });
    const es = await tokenOf(await b.request("POST", "/token", { headers: bearer(session) }));
    expect(decodeParts(es).header.alg).toBe("ES256");
    expect(await kids(b)).toEqual([decodeParts(es).header.kid, decodeParts(token).header.kid]);
    expect((await b.auth.api.verifyJwt(es)).sub).toBeTruthy();
  });
});

describe("changed secret", () => {
  it("gives JWT_KEY_UNREADABLE (not a crash), keeps get-session and /jwks up, and rotateJwks({ force: true }) recovers", async () => {
    const before = createTestAuth({ plugins: [jwt()] });
    const { token: oldToken, session } = await issueToken(before);
    const after = createTestAuth({ store: before.store, clock: before.clock, secret: `${TEST_SECRET}-rotated`, plugins: [jwt()] });
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
    expect(await kids(after)).toEqual([decodeParts(oldToken).header.kid]);
    expect((await after.auth.api.verifyJwt(oldToken)).sub).toBeTruthy();

    await expect(after.auth.api.rotateJwks()).rejects.toMatchObject({ code: "JWT_KEY_UNREADABLE" });
    expect(await before.store.jwks.list()).toHaveLength(1);
    const { kid } = await after.auth.api.rotateJwks({ force: true });
    const fresh = await tokenOf(await after.request("POST", "/token", { headers: bearer(session) }));
    expect(decodeParts(fresh).header.kid).toBe(kid);
    expect(await kids(after)).toEqual([kid, decodeParts(oldToken).header.kid]);
    expect((await after.auth.api.verifyJwt(oldToken)).sub).toBeTruthy();
    expect((await after.request("GET", "/get-session", { headers: bearer(session) })).headers.get("set-auth-jwt")).toBeTruthy();
  });
});
