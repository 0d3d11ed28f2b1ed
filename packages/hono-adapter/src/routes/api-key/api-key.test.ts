import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";
import { setup, signedIn, createKey } from "../../../test/routes/api-key/fixtures.ts";

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
    const page2 = await (
      await t.request("GET", `/api-key/list?limit=2&cursor=${encodeURIComponent(page1.nextCursor)}`, { headers })
    ).json();
    const page3 = await (
      await t.request("GET", `/api-key/list?limit=2&cursor=${encodeURIComponent(page2.nextCursor)}`, { headers })
    ).json();
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
    const res = await t.request("POST", "/api-key/update", {
      body: { keyId: apiKey.id, name: "new", enabled: false, metadata: { b: 2 }, permissions: { files: ["read"] } },
      headers,
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.apiKey).toMatchObject({
      id: apiKey.id,
      name: "new",
      enabled: false,
      metadata: { b: 2 },
      permissions: { files: ["read"] },
    });
    expect(JSON.stringify(body)).not.toContain(hashSecret(key));
    expect(await t.store.apiKeys.findById(apiKey.id)).toMatchObject({
      name: "new",
      enabled: false,
      metadata: { b: 2 },
      permissions: { files: ["read"] },
    });
    const unchanged = await t.request("POST", "/api-key/update", { body: { keyId: apiKey.id }, headers });
    expect((await unchanged.json()).apiKey.name).toBe("new");
  });

  it("privilege escalation: another user's key is 404 KEY_NOT_FOUND; quota fields 400; ungrantable permissions 403; nothing changes", async () => {
    const { t } = setup();
    const owner = await signedIn(t);
    const { apiKey } = await createKey(t, owner.headers, { name: "mine" });
    const before = await t.store.apiKeys.findById(apiKey.id);
    const mallory = await signedIn(t, "mallory@example.com");
    const stolen = await t.request("POST", "/api-key/update", {
      body: { keyId: apiKey.id, enabled: false },
      headers: mallory.headers,
    });
    expect(stolen.status).toBe(404);
    expect((await stolen.json()).code).toBe("KEY_NOT_FOUND");
    const quota = await t.request("POST", "/api-key/update", {
      body: { keyId: apiKey.id, remaining: 1e9 },
      headers: owner.headers,
    });
    expect(quota.status).toBe(400);
    expect((await quota.json()).code).toBe("SERVER_ONLY_PROPERTY");
    const perms = await t.request("POST", "/api-key/update", {
      body: { keyId: apiKey.id, permissions: { admin: ["all"] } },
      headers: owner.headers,
    });
    expect(perms.status).toBe(403);
    expect(
      (await t.request("POST", "/api-key/update", { body: { keyId: "missing", name: "x" }, headers: owner.headers }))
        .status,
    ).toBe(404);
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
    expect(events.filter((e) => e.type === "ApiKeyRevoked")).toEqual([
      expect.objectContaining({ keyId: apiKey.id, userId: owner.userId }),
    ]);
    expect(
      (await t.request("POST", "/api-key/delete", { body: { keyId: apiKey.id }, headers: owner.headers })).status,
    ).toBe(404);
  });

  it("sweeps only the caller's expired keys; auth.api sweeps the rest", async () => {
    const { t, events } = setup();
    const a = await signedIn(t);
    const b = await signedIn(t, "bob@example.com");
    const aExpiring = await createKey(t, a.headers, { expiresIn: 60 });
    const aLive = await createKey(t, a.headers);
    const bExpiring = await createKey(t, b.headers, { expiresIn: 60 });
    expect(await (await t.request("POST", "/api-key/delete-all-expired", { headers: a.headers })).json()).toEqual({
      deleted: 0,
    });
    t.clock.advance(60_000);
    const res = await t.request("POST", "/api-key/delete-all-expired", { headers: a.headers });
    expect(await res.json()).toEqual({ deleted: 1 });
    expect(await t.store.apiKeys.findById(aExpiring.apiKey.id)).toBeNull();
    expect(await t.store.apiKeys.findById(aLive.apiKey.id)).not.toBeNull();
    expect(await t.store.apiKeys.findById(bExpiring.apiKey.id)).not.toBeNull();
    expect(events.filter((e) => e.type === "ApiKeyRevoked")).toEqual([
      expect.objectContaining({ keyId: aExpiring.apiKey.id, userId: a.userId }),
    ]);
    expect((await t.request("POST", "/api-key/delete-all-expired")).status).toBe(401);
    expect(await t.auth.api.deleteExpiredApiKeys()).toEqual({ deleted: 1 });
    expect(await t.store.apiKeys.findById(bExpiring.apiKey.id)).toBeNull();
  });
});

describe("feature switch", () => {
  it("without apiKeys() every /api-key path answers 404 and requireApiKey refuses to build", async () => {
    const t = createTestAuth();
    const { headers } = await signedIn(t);
    for (const [method, path] of [
      ["POST", "/api-key/create"],
      ["POST", "/api-key/verify"],
      ["GET", "/api-key/list"],
      ["POST", "/api-key/delete-all-expired"],
    ] as const) {
      const res = await t.request(method, path, { body: method === "POST" ? {} : undefined, headers });
      expect(res.status, path).toBe(404);
      expect((await res.json()).code).toBe("NOT_FOUND");
    }
    expect(() => t.auth.requireApiKey()).toThrow(/apiKeys\(\)/);
  });

  it("documents the six operations in the OpenAPI document", async () => {
    const { t } = setup();
    const doc = await (await t.request("GET", "/openapi.json")).json();
    for (const path of [
      "/api-key/create",
      "/api-key/verify",
      "/api-key/list",
      "/api-key/update",
      "/api-key/delete",
      "/api-key/delete-all-expired",
    ])
      expect(doc.paths[path], path).toBeDefined();
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" });
  });
});
