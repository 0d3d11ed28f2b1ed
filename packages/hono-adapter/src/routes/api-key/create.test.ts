import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { cookieHeaders } from "../../../test/test-auth.ts";
import { setup, signedIn, createKey } from "../../../test/routes/api-key/fixtures.ts";

describe("POST /api-key/create", () => {
  it("returns the plaintext once; the store keeps only SHA-256(key), and no event carries the key", async () => {
    const { t, events } = setup();
    const { headers, userId } = await signedIn(t);
    const res = await t.request("POST", "/api-key/create", {
      body: { name: "CI", metadata: { team: "ops" } },
      headers,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { key, apiKey } = await res.json();
    expect(key).toMatch(/^lk_[A-Za-z0-9]{40}$/);
    expect(apiKey).toMatchObject({
      userId,
      name: "CI",
      prefix: "lk_",
      start: key.slice(0, 8),
      enabled: true,
      metadata: { team: "ops" },
      permissions: {},
      remaining: null,
      rateLimitMax: null,
      expiresAt: null,
      lastUsedAt: null,
    });
    const stored = await t.store.apiKeys.findByHash(hashSecret(key));
    expect(stored!.id).toBe(apiKey.id);
    expect(stored!.keyHash).toBe(hashSecret(key));
    expect(stored!.keyHash).not.toBe(key);
    expect(Object.keys(apiKey)).not.toContain("keyHash");
    expect(JSON.stringify(apiKey)).not.toContain(stored!.keyHash);
    expect(events.filter((e) => e.type === "ApiKeyCreated")).toEqual([
      expect.objectContaining({ keyId: apiKey.id, userId }),
    ]);
    expect(JSON.stringify(events)).not.toContain(key);
  });

  it("applies prefix, expiresIn and the configured defaults", async () => {
    const { t } = setup({
      defaultPrefix: "acme_",
      defaultRemaining: 100,
      defaultRateLimitMax: 10,
      defaultRateLimitWindow: "1m",
      defaultExpiresIn: "30d",
    });
    const { headers } = await signedIn(t);
    const a = await createKey(t, headers);
    expect(a.key).toMatch(/^acme_[A-Za-z0-9]{40}$/);
    expect(await t.store.apiKeys.findById(a.apiKey.id)).toMatchObject({
      remaining: 100,
      rateLimitMax: 10,
      rateLimitWindowMs: 60_000,
      expiresAt: new Date(t.clock.now() + 30 * 86_400_000),
    });
    const b = await createKey(t, headers, { prefix: "ci_", expiresIn: 3600 });
    expect(b.key.startsWith("ci_")).toBe(true);
    expect((await t.store.apiKeys.findById(b.apiKey.id))!.expiresAt).toEqual(new Date(t.clock.now() + 3_600_000));
  });

  it("needs a session (401) and, with a cookie, a trusted Origin (403)", async () => {
    const { t, events } = setup();
    const { token } = await t.signUp("ada@example.com");
    expect((await t.request("POST", "/api-key/create", { body: {} })).status).toBe(401);
    const csrf = await t.request("POST", "/api-key/create", {
      body: {},
      headers: cookieHeaders(token, "https://evil.example"),
    });
    expect(csrf.status).toBe(403);
    expect((await csrf.json()).code).toBe("INVALID_ORIGIN");
    expect((await t.request("POST", "/api-key/create", { body: {}, headers: cookieHeaders(token) })).status).toBe(200);
    expect(events.filter((e) => e.type === "ApiKeyCreated")).toHaveLength(1);
  });

  it("privilege escalation: quota, rate-limit, refill and owner fields over HTTP are 400 SERVER_ONLY_PROPERTY and write nothing", async () => {
    const { t } = setup();
    const { headers, userId } = await signedIn(t);
    const victim = await t.signUp("victim@example.com");
    for (const extra of [
      { remaining: 1e9 },
      { rateLimitMax: 1e6 },
      { rateLimitWindow: 1 },
      { rateLimitEnabled: false },
      { refillAmount: 5 },
      { refillInterval: 1000 },
      { userId: victim.userId },
    ]) {
      const res = await t.request("POST", "/api-key/create", { body: { name: "x", ...extra }, headers });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(await res.json()).toMatchObject({
        code: "SERVER_ONLY_PROPERTY",
        details: [{ path: Object.keys(extra)[0] }],
      });
    }
    expect((await t.store.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items).toEqual([]);
    expect((await t.store.apiKeys.listByUser(victim.userId, { limit: 10, cursor: null })).items).toEqual([]);
  });

  it("privilege escalation: permissions beyond grantablePermissions are 403 (default: none grantable)", async () => {
    const strict = setup();
    const s = await signedIn(strict.t);
    const denied = await strict.t.request("POST", "/api-key/create", {
      body: { permissions: { files: ["read"] } },
      headers: s.headers,
    });
    expect(denied.status).toBe(403);
    expect((await denied.json()).code).toBe("INSUFFICIENT_PERMISSIONS");
    expect((await strict.t.store.apiKeys.listByUser(s.userId, { limit: 10, cursor: null })).items).toEqual([]);

    const { t } = setup({ grantablePermissions: { files: ["read", "write"] } });
    const { headers } = await signedIn(t);
    const ok = await createKey(t, headers, { permissions: { files: ["read"] } });
    expect((await t.store.apiKeys.findById(ok.apiKey.id))!.permissions).toEqual({ files: ["read"] });
    for (const permissions of [{ files: ["delete"] }, { admin: ["read"] }, { files: ["read"], admin: [] }]) {
      expect(
        (await t.request("POST", "/api-key/create", { body: { permissions }, headers })).status,
        JSON.stringify(permissions),
      ).toBe(403);
    }
  });

  it("rejects bad input with 400 and writes nothing", async () => {
    const { t } = setup({ maxExpiresIn: "7d" });
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

  it("defaultExpiresIn is the lifetime of keys created without expiresIn; maxExpiresIn caps what a caller asks for", async () => {
    const { t } = setup({ defaultExpiresIn: "30d", maxExpiresIn: "90d" });
    const { headers, userId } = await signedIn(t);
    const now = t.clock.now();
    const byDefault = await createKey(t, headers, {});
    expect(Date.parse(String(byDefault.apiKey.expiresAt))).toBe(now + 30 * 86_400_000);
    // Longer than the default but within the cap: allowed (the default no longer caps).
    const longer = await createKey(t, headers, { expiresIn: "60d" });
    expect(Date.parse(String(longer.apiKey.expiresAt))).toBe(now + 60 * 86_400_000);
    for (const expiresIn of ["91d", null]) {
      const res = await t.request("POST", "/api-key/create", { body: { expiresIn }, headers });
      expect(res.status, String(expiresIn)).toBe(400);
      expect(await res.json()).toMatchObject({ code: "INVALID_REQUEST", details: [{ path: "expiresIn" }] });
    }
    const stored = (await t.store.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items;
    expect(stored.map((k) => k.expiresAt?.getTime()).sort()).toEqual([now + 30 * 86_400_000, now + 60 * 86_400_000]);
  });

  it("the default cap is one year; maxExpiresIn: null lets a caller ask for any lifetime or none", async () => {
    const capped = setup();
    const a = await signedIn(capped.t);
    expect(
      (await capped.t.request("POST", "/api-key/create", { body: { expiresIn: "366d" }, headers: a.headers })).status,
    ).toBe(400);
    expect(
      (await capped.t.request("POST", "/api-key/create", { body: { expiresIn: "365d" }, headers: a.headers })).status,
    ).toBe(200);
    // Without defaultExpiresIn an omitted lifetime means never.
    expect((await createKey(capped.t, a.headers, {})).apiKey.expiresAt).toBeNull();
    const open = setup({ maxExpiresIn: null });
    const b = await signedIn(open.t);
    expect((await createKey(open.t, b.headers, { expiresIn: "3000d" })).apiKey.expiresAt).not.toBeNull();
    expect((await createKey(open.t, b.headers, { expiresIn: null })).apiKey.expiresAt).toBeNull();
  });
});
