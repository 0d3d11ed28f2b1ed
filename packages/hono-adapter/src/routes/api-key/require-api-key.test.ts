import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { apiKeys, AuthConfigError, hashSecret, type ApiKeysOptions, type CreateApiKeyInput } from "@latchkey/core";
import { BASE_URL, createTestAuth } from "../../../test/test-auth.ts";

async function setup(options: ApiKeysOptions = {}) {
  const t = createTestAuth({ plugins: [apiKeys(options)] });
  const { userId } = await t.signUp("ada@example.com");
  const app = new Hono();
  app.use("*", t.auth.middleware);
  app.get("/data", t.auth.requireApiKey(), (c) => c.json({ apiKey: c.var.apiKey, user: c.var.user }));
  app.post("/files", t.auth.requireApiKey({ permissions: { files: ["write"] } }), (c) =>
    c.json({ ok: true, keyId: c.var.apiKey.id }),
  );
  const call = (path: string, key?: string, method = "GET") =>
    app.request(`${BASE_URL}${path}`, {
      method,
      headers: key === undefined ? {} : { [options.header ?? "x-api-key"]: key },
    });
  const make = (input: Omit<CreateApiKeyInput, "userId"> = {}) => t.auth.api.createApiKey({ userId, ...input });
  return { t, userId, call, make };
}

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(await res.json()).toEqual({ code, message: expect.any(String) });
}

describe("auth.requireApiKey()", () => {
  it("admits a valid key and sets c.var.apiKey (no hash) and c.var.user", async () => {
    const { call, make, userId } = await setup();
    const { key, apiKey } = await make({ name: "svc" });
    const res = await call("/data", key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.apiKey).toMatchObject({ id: apiKey.id, name: "svc", userId });
    expect(body.user).toMatchObject({ id: userId, email: "ada@example.com" });
    expect(JSON.stringify(body)).not.toContain(hashSecret(key));
    expect(JSON.stringify(body)).not.toContain(key);
  });

  it("missing, unknown and malformed keys are a uniform 401 INVALID_API_KEY, never 5xx", async () => {
    const { call, make } = await setup();
    const { key } = await make();
    const bad = [
      undefined,
      "",
      `lk_${"Z".repeat(40)}`,
      `lk_${"a".repeat(10 * 1024)}`,
      `${key.slice(0, -1)}é`,
      key.replace("_", "-"),
      key.slice(3),
      `${key}, ${key}`,
    ];
    const bodies = new Set<string>();
    for (const k of bad) {
      const res = await call("/data", k);
      expect(res.status, String(k).slice(0, 20)).toBe(401);
      bodies.add(await res.text());
    }
    expect([...bodies]).toEqual([JSON.stringify({ code: "INVALID_API_KEY", message: "The API key is invalid" })]);
  });

  it("a session cookie or Bearer token is not an API key", async () => {
    const { t, call } = await setup();
    const { token } = await t.signUp("bob@example.com");
    const app = new Hono();
    app.get("/data", t.auth.requireApiKey(), (c) => c.json({ ok: true }));
    await expectError(
      await app.request(`${BASE_URL}/data`, { headers: { authorization: `Bearer ${token}` } }),
      401,
      "INVALID_API_KEY",
    );
    await expectError(await call("/data", token), 401, "INVALID_API_KEY");
  });

  it("disabled and expired keys are 401 KEY_DISABLED / KEY_EXPIRED", async () => {
    const { t, call, make } = await setup();
    const disabled = await make({ enabled: false });
    await expectError(await call("/data", disabled.key), 401, "KEY_DISABLED");
    const expiring = await make({ expiresIn: 60 });
    expect((await call("/data", expiring.key)).status).toBe(200);
    t.clock.advance(60_000);
    await expectError(await call("/data", expiring.key), 401, "KEY_EXPIRED");
  });

  it("missing permissions are 403 INSUFFICIENT_PERMISSIONS and do not burn quota", async () => {
    const { t, call, make } = await setup();
    const reader = await make({ permissions: { files: ["read"] }, remaining: 5 });
    await expectError(await call("/files", reader.key, "POST"), 403, "INSUFFICIENT_PERMISSIONS");
    expect((await t.store.apiKeys.findById(reader.apiKey.id))!.remaining).toBe(5);
    const writer = await make({ permissions: { files: ["read", "write"] } });
    const ok = await call("/files", writer.key, "POST");
    expect(await ok.json()).toEqual({ ok: true, keyId: writer.apiKey.id });
  });

  it("a used-up quota is 429 USAGE_EXCEEDED without Retry-After; a full window is 429 RATE_LIMITED with Retry-After", async () => {
    const { t, call, make } = await setup();
    const quota = await make({ remaining: 1 });
    expect((await call("/data", quota.key)).status).toBe(200);
    const used = await call("/data", quota.key);
    expect(used.headers.get("retry-after")).toBeNull();
    await expectError(used, 429, "USAGE_EXCEEDED");
    const limited = await make({ rateLimitMax: 1, rateLimitWindow: "1m" });
    expect((await call("/data", limited.key)).status).toBe(200);
    t.clock.advance(20_500);
    const over = await call("/data", limited.key);
    expect(over.headers.get("retry-after")).toBe("40");
    await expectError(over, 429, "RATE_LIMITED");
  });

  it("race: remaining 1 under 10 parallel requests admits exactly one", async () => {
    const { call, make } = await setup();
    const { key } = await make({ remaining: 1 });
    const statuses = (await Promise.all(Array.from({ length: 10 }, () => call("/data", key)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
  });

  it("reads the configured header; bad permission options fail when the route is built", async () => {
    const { call, make, t } = await setup({ header: "x-service-key" });
    const { key } = await make();
    expect((await call("/data", key)).status).toBe(200);
    expect(() => t.auth.requireApiKey({ permissions: { files: "read" } as never })).toThrow(AuthConfigError);
  });
});
