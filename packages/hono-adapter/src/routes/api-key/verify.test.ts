import { describe, expect, it } from "vitest";
import { apiKeys, hashSecret, type ApiKeysOptions, type AuthEvent, type CreateApiKeyInput } from "@latchkey/core";
import { createTestAuth, type TestAuth } from "../../../test/test-auth.ts";

async function setup(
  options: ApiKeysOptions = {},
  extra: Omit<NonNullable<Parameters<typeof createTestAuth>[0]>, "plugins"> = {},
) {
  const t = createTestAuth({ plugins: [apiKeys(options)], ...extra });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  const { userId } = await t.signUp("ada@example.com");
  const make = (input: Omit<CreateApiKeyInput, "userId"> = {}) => t.auth.api.createApiKey({ userId, ...input });
  return { t, events, userId, make };
}

async function verify(t: TestAuth, body: unknown, headers: Record<string, string> = {}) {
  const res = await t.request("POST", "/api-key/verify", { body, headers });
  expect(res.status).toBe(200);
  return res.json();
}

const malformed = (prefixed: string): Array<[string, string]> => [
  ["empty", ""],
  ["10 KB", `lk_${"a".repeat(10 * 1024)}`],
  ["non-ASCII", `${prefixed.slice(0, -1)}é`],
  ["wrong prefix shape", prefixed.replace("_", "-")],
  ["no prefix", prefixed.slice(3)],
  ["whitespace", ` ${prefixed}`],
];

describe("POST /api-key/verify", () => {
  it("accepts the key from the body or the x-api-key header and answers {valid: true, apiKey} without the hash", async () => {
    const { t, make } = await setup();
    const { key, apiKey } = await make({ name: "svc" });
    const fromBody = await verify(t, { key });
    expect(fromBody).toEqual({
      valid: true,
      apiKey: expect.objectContaining({ id: apiKey.id, name: "svc", start: key.slice(0, 8) }),
      deprecated: false,
    });
    expect(JSON.stringify(fromBody)).not.toContain(hashSecret(key));
    expect(await verify(t, {}, { "x-api-key": key })).toMatchObject({ valid: true, apiKey: { id: apiKey.id } });
    const noBody = await t.request("POST", "/api-key/verify", { headers: { "x-api-key": key } });
    expect(await noBody.json()).toMatchObject({ valid: true });
  });

  it("an unlimited key records lastUsedAt at most once per lastUsedResolution and nothing else", async () => {
    const { t, make } = await setup();
    const { key, apiKey } = await make();
    const before = (await t.store.apiKeys.findById(apiKey.id))!;
    expect(before.lastUsedAt).toBeNull();
    const usedAt = new Date(t.clock.now());
    for (let i = 0; i < 5; i++) {
      expect(await verify(t, { key })).toMatchObject({ valid: true, apiKey: { lastUsedAt: usedAt.toISOString() } });
      t.clock.advance(1000);
    }
    expect(await t.store.apiKeys.findById(apiKey.id)).toEqual({ ...before, lastUsedAt: usedAt });
    t.clock.advance(55_000);
    expect((await verify(t, { key })).valid).toBe(true);
    expect((await t.store.apiKeys.findById(apiKey.id))!.lastUsedAt).toEqual(new Date(t.clock.now()));
  });

  it("missing, unknown and malformed keys are a uniform 200 {valid: false, INVALID_API_KEY}, never 5xx", async () => {
    const { t, make, events } = await setup();
    const { key } = await make();
    const unknown = `lk_${"Z".repeat(40)}`;
    const answers = [await verify(t, {}), await verify(t, { key: unknown }), await verify(t, {}, { "x-api-key": "" })];
    for (const [label, bad] of malformed(key)) answers.push({ label, ...(await verify(t, { key: bad })) });
    for (const a of answers)
      expect(a, JSON.stringify(a).slice(0, 80)).toMatchObject({
        valid: false,
        error: { code: "INVALID_API_KEY", message: "The API key is invalid" },
      });
    const failed = events.filter((e) => e.type === "ApiKeyVerifyFailed");
    expect(failed).toHaveLength(answers.length);
    expect(
      failed.every((e) => e.type === "ApiKeyVerifyFailed" && e.keyId === undefined && e.code === "INVALID_API_KEY"),
    ).toBe(true);
    expect(JSON.stringify(events)).not.toContain(unknown);
  });

  it("a key that is not a string is 400 INVALID_REQUEST (a malformed request, not a key)", async () => {
    const { t } = await setup();
    const res = await t.request("POST", "/api-key/verify", { body: { key: 42 } });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("INVALID_REQUEST");
  });

  it("disabled keys fail KEY_DISABLED; expired keys fail KEY_EXPIRED once the clock passes expiry, and the sweep removes them", async () => {
    const { t, make, events, userId } = await setup();
    const disabled = await make({ enabled: false, remaining: 3 });
    expect(await verify(t, { key: disabled.key })).toMatchObject({ valid: false, error: { code: "KEY_DISABLED" } });
    expect((await t.store.apiKeys.findById(disabled.apiKey.id))!.remaining).toBe(3);
    const expiring = await make({ expiresIn: "1h" });
    expect((await verify(t, { key: expiring.key })).valid).toBe(true);
    t.clock.advance(3_600_000);
    expect(await verify(t, { key: expiring.key })).toMatchObject({ valid: false, error: { code: "KEY_EXPIRED" } });
    expect(
      events
        .filter((e) => e.type === "ApiKeyVerifyFailed")
        .map((e) => e.type === "ApiKeyVerifyFailed" && [e.keyId, e.code]),
    ).toEqual([
      [disabled.apiKey.id, "KEY_DISABLED"],
      [expiring.apiKey.id, "KEY_EXPIRED"],
    ]);
    expect(await t.auth.api.deleteExpiredApiKeys()).toEqual({ deleted: 1 });
    expect(await t.store.apiKeys.findByHash(hashSecret(expiring.key))).toBeNull();
    expect(await verify(t, { key: expiring.key })).toMatchObject({ valid: false, error: { code: "INVALID_API_KEY" } });
    expect((await t.store.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items).toHaveLength(1);
  });

  it("checks permissions all-of, before consuming: a refused check does not burn quota", async () => {
    const { t, make } = await setup();
    const { key, apiKey } = await make({ permissions: { files: ["read", "write"] }, remaining: 2 });
    expect(await verify(t, { key, permissions: { files: ["read", "delete"] } })).toMatchObject({
      valid: false,
      error: { code: "INSUFFICIENT_PERMISSIONS" },
    });
    expect(await verify(t, { key, permissions: { users: ["read"] } })).toMatchObject({
      valid: false,
      error: { code: "INSUFFICIENT_PERMISSIONS" },
    });
    expect((await t.store.apiKeys.findById(apiKey.id))!.remaining).toBe(2);
    expect(await verify(t, { key, permissions: { files: ["write", "read"] } })).toMatchObject({
      valid: true,
      apiKey: { remaining: 1 },
    });
    const bad = await t.request("POST", "/api-key/verify", { body: { key, permissions: { files: "read" } } });
    expect(bad.status).toBe(400);
  });

  it("consumes quota atomically: USAGE_EXCEEDED with tryAgainIn null once used up", async () => {
    const { t, make } = await setup();
    const { key, apiKey } = await make({ remaining: 2 });
    expect(await verify(t, { key })).toMatchObject({
      valid: true,
      apiKey: { remaining: 1, lastUsedAt: new Date(t.clock.now()).toISOString() },
    });
    expect((await verify(t, { key })).valid).toBe(true);
    expect(await verify(t, { key })).toEqual({
      valid: false,
      error: { code: "USAGE_EXCEEDED", message: expect.any(String), tryAgainIn: null },
    });
    expect((await t.store.apiKeys.findById(apiKey.id))!.remaining).toBe(0);
  });

  it("enforces the per-key window: RATE_LIMITED with tryAgainIn until the window ends, then admits again", async () => {
    const { t, make } = await setup();
    const { key } = await make({ rateLimitMax: 2, rateLimitWindow: "1m" });
    expect((await verify(t, { key })).valid).toBe(true);
    t.clock.advance(10_000);
    expect((await verify(t, { key })).valid).toBe(true);
    t.clock.advance(5_000);
    expect(await verify(t, { key })).toEqual({
      valid: false,
      error: {
        code: "RATE_LIMITED",
        message: "The API key is over its rate limit; try again in 45 seconds",
        tryAgainIn: 45_000,
      },
    });
    t.clock.advance(45_000);
    expect((await verify(t, { key })).valid).toBe(true);
  });

  it("race: a key with remaining 1 under 10 parallel verifies validates exactly once", async () => {
    const { t, make } = await setup();
    const { key, apiKey } = await make({ remaining: 1 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => verify(t, { key })));
    expect(answers.filter((a) => a.valid)).toHaveLength(1);
    expect(answers.filter((a) => !a.valid && a.error.code === "USAGE_EXCEEDED")).toHaveLength(9);
    expect((await t.store.apiKeys.findById(apiKey.id))!.remaining).toBe(0);
  });

  it("race: a per-key limit of 5 per window under 20 parallel verifies admits exactly 5", async () => {
    const { t, make } = await setup();
    const { key, apiKey } = await make({ rateLimitMax: 5, rateLimitWindow: "1m" });
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(t, {}, { "x-api-key": key })));
    expect(answers.filter((a) => a.valid)).toHaveLength(5);
    expect(answers.filter((a) => !a.valid && a.error.code === "RATE_LIMITED")).toHaveLength(15);
    expect((await t.store.apiKeys.findById(apiKey.id))!.requestCount).toBe(5);
  });

  it("is not throttled by the global per-IP rule (that would add a write to every verify)", async () => {
    const { t, make } = await setup({}, { rateLimit: { max: 3 } });
    const { key } = await make();
    for (let i = 0; i < 10; i++) expect((await verify(t, { key })).valid).toBe(true);
    const limited = await setup({}, { rateLimit: { rules: { "/api-key/verify": { window: "1m", max: 2 } } } });
    const k = await limited.make();
    expect((await limited.t.request("POST", "/api-key/verify", { body: { key: k.key } })).status).toBe(200);
    expect((await limited.t.request("POST", "/api-key/verify", { body: { key: k.key } })).status).toBe(200);
    expect((await limited.t.request("POST", "/api-key/verify", { body: { key: k.key } })).status).toBe(429);
  });

  it("reads the configured header", async () => {
    const { t, make } = await setup({ header: "X-Service-Key" });
    const { key } = await make();
    expect((await verify(t, {}, { "x-service-key": key })).valid).toBe(true);
    expect((await verify(t, {}, { "x-api-key": key })).valid).toBe(false);
  });
});
