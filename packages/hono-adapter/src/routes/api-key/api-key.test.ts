import { describe, expect, it } from "vitest";
import { apiKeys, hashSecret, type ApiKeysOptions, type AuthEvent } from "@latchkey/core";
import { bearer, cookieHeaders, createTestAuth, type TestAuth } from "../../testing/test-auth.ts";

function setup(options: ApiKeysOptions = {}) {
  const t = createTestAuth({ plugins: [apiKeys(options)] });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  return { t, events };
}

async function signedIn(t: TestAuth, email = "ada@example.com") {
  const { token, userId } = await t.signUp(email);
  return { headers: bearer(token), userId };
}

async function createKey(t: TestAuth, headers: Record<string, string>, body: Record<string, unknown> = {}) {
  const res = await t.request("POST", "/api-key/create", { body, headers });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { key: string; apiKey: { id: string; start: string; [k: string]: unknown } };
}

describe("POST /api-key/create", () => {
  it("returns the plaintext once; the store keeps only SHA-256(key), and no event carries the key", async () => {
    const { t, events } = setup();
    const { headers, userId } = await signedIn(t);
    const res = await t.request("POST", "/api-key/create", { body: { name: "CI", metadata: { team: "ops" } }, headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { key, apiKey } = await res.json();
    expect(key).toMatch(/^lk_[A-Za-z0-9]{40}$/);
    expect(apiKey).toMatchObject({ userId, name: "CI", prefix: "lk_", start: key.slice(0, 8), enabled: true, metadata: { team: "ops" }, permissions: {}, remaining: null, rateLimitMax: null, expiresAt: null, lastUsedAt: null });
    const stored = await t.store.apiKeys.findByHash(hashSecret(key));
    expect(stored!.id).toBe(apiKey.id);
    expect(stored!.keyHash).toBe(hashSecret(key));
    expect(stored!.keyHash).not.toBe(key);
    expect(Object.keys(apiKey)).not.toContain("keyHash");
    expect(JSON.stringify(apiKey)).not.toContain(stored!.keyHash);
    expect(events.filter((e) => e.type === "ApiKeyCreated")).toEqual([expect.objectContaining({ keyId: apiKey.id, userId })]);
    expect(JSON.stringify(events)).not.toContain(key);
  });

  it("applies prefix, expiresIn and the configured defaults", async () => {
    const { t } = setup({ defaultPrefix: "acme_", defaultRemaining: 100, defaultRateLimitMax: 10, defaultRateLimitWindow: "1m", defaultExpiresIn: "30d" });
    const { headers } = await signedIn(t);
    const a = await createKey(t, headers);
    expect(a.key).toMatch(/^acme_[A-Za-z0-9]{40}$/);
    expect(await t.store.apiKeys.findById(a.apiKey.id)).toMatchObject({ remaining: 100, rateLimitMax: 10, rateLimitWindowMs: 60_000, expiresAt: new Date(t.clock.now() + 30 * 86_400_000) });
    const b = await createKey(t, headers, { prefix: "ci_", expiresIn: 3600 });
    expect(b.key.startsWith("ci_")).toBe(true);
    expect((await t.store.apiKeys.findById(b.apiKey.id))!.expiresAt).toEqual(new Date(t.clock.now() + 3_600_000));
  });

  it("needs a session (401) and, with a cookie, a trusted Origin (403)", async () => {
    const { t, events } = setup();
    const { token } = await t.signUp("ada@example.com");
    expect((await t.request("POST", "/api-key/create", { body: {} })).status).toBe(401);
    const csrf = await t.request("POST", "/api-key/create", { body: {}, headers: cookieHeaders(token, "https://evil.example") });
    expect(csrf.status).toBe(403);
    expect((await csrf.json()).code).toBe("INVALID_ORIGIN");
    expect((await t.request("POST", "/api-key/create", { body: {}, headers: cookieHeaders(token) })).status).toBe(200);
    expect(events.filter((e) => e.type === "ApiKeyCreated")).toHaveLength(1);
  });

  it("privilege escalation: quota, rate-limit, refill and owner fields over HTTP are 400 SERVER_ONLY_PROPERTY and write nothing", async () => {
    const { t } = setup();
    const { headers, userId } = await signedIn(t);
    const victim = await t.signUp("victim@example.com");
    for (const extra of [{ remaining: 1e9 }, { rateLimitMax: 1e6 }, { rateLimitWindow: 1 }, { rateLimitEnabled: false }, { refillAmount: 5 }, { refillInterval: 1000 }, { userId: victim.userId }]) {
      const res = await t.request("POST", "/api-key/create", { body: { name: "x", ...extra }, headers });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(await res.json()).toMatchObject({ code: "SERVER_ONLY_PROPERTY", details: [{ path: Object.keys(extra)[0] }] });
    }
    expect((await t.store.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items).toEqual([]);
    expect((await t.store.apiKeys.listByUser(victim.userId, { limit: 10, cursor: null })).items).toEqual([]);
  });

  it("privilege escalation: permissions beyond grantablePermissions are 403 (default: none grantable)", async () => {
    const strict = setup();
    const s = await signedIn(strict.t);
    const denied = await strict.t.request("POST", "/api-key/create", { body: { permissions: { files: ["read"] } }, headers: s.headers });
    expect(denied.status).toBe(403);
    expect((await denied.json()).code).toBe("INSUFFICIENT_PERMISSIONS");
    expect((await strict.t.store.apiKeys.listByUser(s.userId, { limit: 10, cursor: null })).items).toEqual([]);

    const { t } = setup({ grantablePermissions: { files: ["read", "write"] } });
    const { headers } = await signedIn(t);
    const ok = await createKey(t, headers, { permissions: { files: ["read"] } });
    expect((await t.store.apiKeys.findById(ok.apiKey.id))!.permissions).toEqual({ files: ["read"] });
    for (const permissions of [{ files: ["delete"] }, { admin: ["read"] }, { files: ["read"], admin: [] }]) {
      expect((await t.request("POST", "/api-key/create", { body: { permissions }, headers })).status, JSON.stringify(permissions)).toBe(403);
    }
  });

  it("rejects bad input with 400 and writes nothing", async () => {
    const { t } = setup({ defaultExpiresIn: "7d" });
    const { headers, userId } = await signedIn(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ prefix: "lk-" }, "INVALID_REQUEST"],
      [{ prefix: "" }, "INVALID_REQUEST"],
      [{ prefix: "a".repeat(17) }, "INVALID_REQUEST"],
      [{ name: "n".repeat(257) }, "INVALID_REQUEST"],
      [{ name: 42 }, "INVALID_REQUEST"],
      [{ expiresIn: "forever" }, "INVALID_REQUEST"],
      [{ expiresIn: -5 }, "INVALID_REQUEST"],
      [{ expiresIn: "8d" }, "INVALID_REQUEST"],
      [{ expiresIn: null }, "INVALID_REQUEST"],
      [{ metadata: [1, 2] }, "INVALID_REQUEST"],
      [{ permissions: { files: ["a b"] } }, "INVALID_REQUEST"],
      [{ permissions: ["files"] }, "INVALID_REQUEST"],
    ];
    for (const [body, code] of cases) {
      const res = await t.request("POST", "/api-key/create", { body, headers });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).code).toBe(code);
    }
    expect((await t.request("POST", "/api-key/create", { body: "{not json", headers })).status).toBe(400);
    expect((await t.store.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items).toEqual([]);
    expect((await t.request("POST", "/api-key/create", { body: { expiresIn: "1d" }, headers })).status).toBe(200);
  });
});

describe("GET /api-key/list", () => {
  it("pages the caller's keys newest first and never shows a key or hash", async () => {
    const { t } = setup();
    const { headers } = await signedIn(t);
    const other = await signedIn(t, "other@example.com");
    await createKey(t, other.headers);
    const created: Array<{ key: string; id: string }> = [];
    for (let i = 0; i < 5; i++) {
      const { key, apiKey } = await createKey(t, headers, { name: `k${i}` });
      created.push({ key, id: apiKey.id });
      t.clock.advance(1000);
    }
    const first = await t.request("GET", "/api-key/list?limit=2", { headers });
    expect(first.status).toBe(200);
    const page1 = await first.json();
    expect(page1.apiKeys.map((k: { name: string }) => k.name)).toEqual(["k4", "k3"]);
    const text = JSON.stringify(page1);
    for (const { key } of created) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(hashSecret(key));
    }
    const page2 = await (await t.request("GET", `/api-key/list?limit=2&cursor=${encodeURIComponent(page1.nextCursor)}`, { headers })).json();
    const page3 = await (await t.request("GET", `/api-key/list?limit=2&cursor=${encodeURIComponent(page2.nextCursor)}`, { headers })).json();
    expect([...page2.apiKeys, ...page3.apiKeys].map((k: { name: string }) => k.name)).toEqual(["k2", "k1", "k0"]);
    expect(page3.nextCursor).toBeNull();
    const all = await (await t.request("GET", "/api-key/list", { headers })).json();
    expect(all.apiKeys).toHaveLength(5);
  });

  it("validates limit (1..100) and needs a session", async () => {
    const { t } = setup();
    const { headers } = await signedIn(t);
    for (const q of ["limit=0", "limit=101", "limit=abc", "limit=1.5"]) {
      const res = await t.request("GET", `/api-key/list?${q}`, { headers });
      expect(res.status, q).toBe(400);
      expect((await res.json()).code).toBe("INVALID_REQUEST");
    }
    expect((await t.request("GET", "/api-key/list")).status).toBe(401);
  });
});

describe("POST /api-key/update", () => {
  it("changes name, enabled, metadata and grantable permissions; the answer has no hash", async () => {
    const { t } = setup({ grantablePermissions: { files: ["read"] } });
    const { headers } = await signedIn(t);
    const { key, apiKey } = await createKey(t, headers, { name: "old", metadata: { a: 1 } });
    const res = await t.request("POST", "/api-key/update", { body: { keyId: apiKey.id, name: "new", enabled: false, metadata: { b: 2 }, permissions: { files: ["read"] } }, headers });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.apiKey).toMatchObject({ id: apiKey.id, name: "new", enabled: false, metadata: { b: 2 }, permissions: { files: ["read"] } });
    expect(JSON.stringify(body)).not.toContain(hashSecret(key));
    expect(await t.store.apiKeys.findById(apiKey.id)).toMatchObject({ name: "new", enabled: false, metadata: { b: 2 }, permissions: { files: ["read"] } });
    const unchanged = await t.request("POST", "/api-key/update", { body: { keyId: apiKey.id }, headers });
    expect((await unchanged.json()).apiKey.name).toBe("new");
  });

  it("privilege escalation: another user's key is 404 KEY_NOT_FOUND; quota fields 400; ungrantable permissions 403; nothing changes", async () => {
    const { t } = setup();
    const owner = await signedIn(t);
    const { apiKey } = await createKey(t, owner.headers, { name: "mine" });
    const before = await t.store.apiKeys.findById(apiKey.id);
    const mallory = await signedIn(t, "mallory@example.com");
    const stolen = await t.request("POST", "/api-key/update", { body: { keyId: apiKey.id, enabled: false }, headers: mallory.headers });
    expect(stolen.status).toBe(404);
    expect((await stolen.json()).code).toBe("KEY_NOT_FOUND");
    const quota = await t.request("POST", "/api-key/update", { body: { keyId: apiKey.id, remaining: 1e9 }, headers: owner.headers });
    expect(quota.status).toBe(400);
    expect((await quota.json()).code).toBe("SERVER_ONLY_PROPERTY");
    const perms = await t.request("POST", "/api-key/update", { body: { keyId: apiKey.id, permissions: { admin: ["all"] } }, headers: owner.headers });
    expect(perms.status).toBe(403);
    expect((await t.request("POST", "/api-key/update", { body: { keyId: "missing", name: "x" }, headers: owner.headers })).status).toBe(404);
    expect(await t.store.apiKeys.findById(apiKey.id)).toEqual(before);
  });
});

describe("POST /api-key/delete and /api-key/delete-all-expired", () => {
  it("revokes the caller's own key only and emits ApiKeyRevoked", async () => {
    const { t, events } = setup();
    const owner = await signedIn(t);
    const mallory = await signedIn(t, "mallory@example.com");
    const { apiKey } = await createKey(t, owner.headers);
    const stolen = await t.request("POST", "/api-key/delete", { body: { keyId: apiKey.id }, headers: mallory.headers });
    expect(stolen.status).toBe(404);
    expect((await stolen.json()).code).toBe("KEY_NOT_FOUND");
    expect(await t.store.apiKeys.findById(apiKey.id)).not.toBeNull();
    const res = await t.request("POST", "/api-key/delete", { body: { keyId: apiKey.id }, headers: owner.headers });
    expect(await res.json()).toEqual({ success: true });
    expect(await t.store.apiKeys.findById(apiKey.id)).toBeNull();
    expect(events.filter((e) => e.type === "ApiKeyRevoked")).toEqual([expect.objectContaining({ keyId: apiKey.id, userId: owner.userId })]);
    expect((await t.request("POST", "/api-key/delete", { body: { keyId: apiKey.id }, headers: owner.headers })).status).toBe(404);
  });

  it("sweeps only the caller's expired keys; auth.api sweeps the rest", async () => {
    const { t, events } = setup();
    const a = await signedIn(t);
    const b = await signedIn(t, "bob@example.com");
    const aExpiring = await createKey(t, a.headers, { expiresIn: 60 });
    const aLive = await createKey(t, a.headers);
    const bExpiring = await createKey(t, b.headers, { expiresIn: 60 });
    expect(await (await t.request("POST", "/api-key/delete-all-expired", { headers: a.headers })).json()).toEqual({ deleted: 0 });
    t.clock.advance(60_000);
    const res = await t.request("POST", "/api-key/delete-all-expired", { headers: a.headers });
    expect(await res.json()).toEqual({ deleted: 1 });
    expect(await t.store.apiKeys.findById(aExpiring.apiKey.id)).toBeNull();
    expect(await t.store.apiKeys.findById(aLive.apiKey.id)).not.toBeNull();
    expect(await t.store.apiKeys.findById(bExpiring.apiKey.id)).not.toBeNull();
    expect(events.filter((e) => e.type === "ApiKeyRevoked")).toEqual([expect.objectContaining({ keyId: aExpiring.apiKey.id, userId: a.userId })]);
    expect((await t.request("POST", "/api-key/delete-all-expired")).status).toBe(401);
    expect(await t.auth.api.deleteExpiredApiKeys()).toEqual({ deleted: 1 });
    expect(await t.store.apiKeys.findById(bExpiring.apiKey.id)).toBeNull();
  });
});

describe("feature switch", () => {
  it("without apiKeys() every /api-key path answers 404 and requireApiKey refuses to build", async () => {
    const t = createTestAuth();
    const { headers } = await signedIn(t);
    for (const [method, path] of [["POST", "/api-key/create"], ["POST", "/api-key/verify"], ["GET", "/api-key/list"], ["POST", "/api-key/delete-all-expired"]] as const) {
      const res = await t.request(method, path, { body: method === "POST" ? {} : undefined, headers });
      expect(res.status, path).toBe(404);
      expect((await res.json()).code).toBe("NOT_FOUND");
    }
    expect(() => t.auth.requireApiKey()).toThrow(/apiKeys\(\)/);
  });

  it("documents the six operations in the OpenAPI document", async () => {
    const { t } = setup();
    const doc = await (await t.request("GET", "/openapi.json")).json();
    for (const path of ["/api-key/create", "/api-key/verify", "/api-key/list", "/api-key/update", "/api-key/delete", "/api-key/delete-all-expired"]) expect(doc.paths[path], path).toBeDefined();
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" });
  });
});
