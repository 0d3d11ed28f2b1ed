import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { Hono } from "hono";
import { BASE_URL, type TestAuth } from "../../../test/test-auth.ts";
import { createKey, setup, signedIn } from "../../../test/routes/api-key/fixtures.ts";

const verify = async (t: TestAuth, key: string) =>
  (await t.request("POST", "/api-key/verify", { body: { key } })).json();

describe("POST /api-key/reroll", () => {
  it("requireApiKey routes see c.var.apiKeyDeprecated for the old value inside its grace", async () => {
    const { t } = setup();
    const { headers } = await signedIn(t);
    const { key: old, apiKey } = await createKey(t, headers);
    const host = new Hono();
    host.use("*", t.auth.middleware);
    host.get("/data", t.auth.requireApiKey(), (c) => c.json({ deprecated: c.var.apiKeyDeprecated }));
    const call = async (key: string) =>
      (await host.request(`${BASE_URL}/data`, { headers: { "x-api-key": key } })).json();
    expect(await call(old)).toEqual({ deprecated: false });
    const { key } = await t.auth.api.rerollApiKey({ keyId: apiKey.id, gracePeriod: 60 });
    expect(await call(old)).toEqual({ deprecated: true });
    expect(await call(key)).toEqual({ deprecated: false });
  });

  it("returns a new value once for the same key (id, settings, quota kept); the old value stops at once by default", async () => {
    const { t, events } = setup({ grantablePermissions: { files: ["read"] } });
    const { headers, userId } = await signedIn(t);
    const { key: old, apiKey } = await createKey(t, headers, {
      name: "ci",
      metadata: { team: "ops" },
      permissions: { files: ["read"] },
      expiresIn: "30d",
    });
    await t.auth.api.updateApiKey({
      keyId: apiKey.id,
      remaining: 10,
      refillAmount: 10,
      refillInterval: "1d",
      rateLimitMax: 5,
      rateLimitWindow: "1m",
      serverMetadata: { plan: "pro" },
    });
    const before = (await t.auth.api.listApiKeys({ userId })).apiKeys[0]!;
    t.clock.advance(1000);
    const res = await t.request("POST", "/api-key/reroll", { body: { keyId: apiKey.id }, headers });
    expect(res.status).toBe(200);
    const { key, apiKey: view } = await res.json();
    expect(key).toMatch(/^lk_[A-Za-z0-9]{40}$/);
    expect(key).not.toBe(old);
    const { start, updatedAt, rerolledAt, ...kept } = before;
    expect(view).toMatchObject({ ...kept, start: key.slice(0, 8), rerolledAt: new Date(t.clock.now()).toISOString() });
    expect(rerolledAt).toBeNull();
    // Only hashes are stored; without a grace the old one is not kept at all.
    const row = (await t.store.apiKeys.findById(apiKey.id))!;
    expect(row).toMatchObject({ keyHash: hashSecret(key), previousKeyHash: null, previousKeyExpiresAt: null });
    expect(JSON.stringify(row)).not.toContain(key);
    expect(await verify(t, old)).toMatchObject({ valid: false, error: { code: "INVALID_API_KEY" } });
    expect(await verify(t, key)).toMatchObject({
      valid: true,
      deprecated: false,
      apiKey: { id: apiKey.id, remaining: 9 },
    });
    expect(events.filter((e) => e.type === "ApiKeyRerolled")).toEqual([
      expect.objectContaining({ type: "ApiKeyRerolled", keyId: apiKey.id, userId, graceUntil: null }),
    ]);
    expect(JSON.stringify(events)).not.toContain(key);
  });

  it("with a grace the old value verifies as deprecated until it ends; a second reroll ends the first old value", async () => {
    const { t, events } = setup();
    const { headers, userId } = await signedIn(t);
    const { key: v0, apiKey } = await createKey(t, headers);
    const r1 = await (
      await t.request("POST", "/api-key/reroll", { body: { keyId: apiKey.id, gracePeriod: "1h" }, headers })
    ).json();
    const v1 = r1.key as string;
    const graceUntil = new Date(t.clock.now() + 3_600_000);
    expect(events.find((e) => e.type === "ApiKeyRerolled")).toMatchObject({ keyId: apiKey.id, userId, graceUntil });
    expect(await verify(t, v0)).toMatchObject({
      valid: true,
      deprecated: true,
      apiKey: { id: apiKey.id, rerolledAt: new Date(t.clock.now()).toISOString() },
    });
    expect(await verify(t, v1)).toMatchObject({ valid: true, deprecated: false });
    expect(await t.store.apiKeys.findById(apiKey.id)).toMatchObject({
      keyHash: hashSecret(v1),
      previousKeyHash: hashSecret(v0),
      previousKeyExpiresAt: graceUntil,
    });
    t.clock.advance(3_599_999);
    expect(await verify(t, v0)).toMatchObject({ valid: true, deprecated: true });
    t.clock.advance(1);
    expect(await verify(t, v0)).toMatchObject({ valid: false, error: { code: "INVALID_API_KEY" } });
    // The ended hash is forgotten by the sweep.
    expect(await t.auth.api.deleteExpiredRerolls()).toEqual({ cleared: 1 });
    expect(await t.store.apiKeys.findById(apiKey.id)).toMatchObject({ previousKeyHash: null });

    // Two rerolls inside one grace: at most two values verify, the first old value ends at once.
    const r2 = await (
      await t.request("POST", "/api-key/reroll", { body: { keyId: apiKey.id, gracePeriod: 600 }, headers })
    ).json();
    const r3 = await t.auth.api.rerollApiKey({ keyId: apiKey.id, gracePeriod: "10m" });
    expect(await verify(t, v1)).toMatchObject({ valid: false, error: { code: "INVALID_API_KEY" } });
    expect(await verify(t, r2.key)).toMatchObject({ valid: true, deprecated: true });
    expect(await verify(t, r3.key)).toMatchObject({ valid: true, deprecated: false });
  });

  it("another user's key is 404 KEY_NOT_FOUND; a grace past maxRerollGrace is 400; nothing changes", async () => {
    const { t, events } = setup({ maxRerollGrace: "1d" });
    const { headers } = await signedIn(t);
    const other = await signedIn(t, "other@example.com");
    const { key, apiKey } = await createKey(t, other.headers);
    const stolen = await t.request("POST", "/api-key/reroll", { body: { keyId: apiKey.id }, headers });
    expect(stolen.status).toBe(404);
    expect(await stolen.json()).toMatchObject({ code: "KEY_NOT_FOUND" });
    const mine = await createKey(t, headers);
    for (const gracePeriod of ["2d", 86_401, "soon", -1]) {
      const res = await t.request("POST", "/api-key/reroll", {
        body: { keyId: mine.apiKey.id, gracePeriod },
        headers,
      });
      expect(res.status, String(gracePeriod)).toBe(400);
      expect((await res.json()).code).toBe("INVALID_REQUEST");
    }
    expect((await t.request("POST", "/api-key/reroll", { body: { keyId: apiKey.id } })).status).toBe(401);
    expect(await verify(t, key)).toMatchObject({ valid: true });
    expect(await verify(t, mine.key)).toMatchObject({ valid: true });
    expect(events.filter((e) => e.type === "ApiKeyRerolled")).toEqual([]);
    await expect(t.auth.api.rerollApiKey({ keyId: apiKey.id, userId: "someone-else" })).rejects.toMatchObject({
      code: "KEY_NOT_FOUND",
    });
  });
});
