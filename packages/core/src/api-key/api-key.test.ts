import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { createAuthCore } from "../auth/auth-core.ts";
import { AuthConfigError, AuthError } from "../errors/errors.ts";
import { createTestClock, webCryptoRandom } from "../ports/clock.ts";
import { hashSecret } from "../crypto/crypto.ts";
import { argon2idHasher } from "../password/argon2.ts";
import type { Store } from "../ports/store.ts";
import { apiKeys, isWellFormedApiKey } from "./api-key.ts";
import { resolveApiKeysOptions, type ApiKeysOptions } from "./options.ts";
import { hasPermissions, normalizePermissions } from "./permissions.ts";

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AuthConfigError) return error.field;
    throw error;
  }
  return undefined;
}

/** A memory store that counts calls to the API-key port, to pin how many reads and writes a verify costs. */
function countingStore(): { store: Store; calls: Record<string, number> } {
  const inner = memoryStore();
  const calls: Record<string, number> = {};
  const apiKeysPort = new Proxy(inner.apiKeys, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls[String(name)] = (calls[String(name)] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: { ...inner, apiKeys: apiKeysPort }, calls };
}

async function setup(options: ApiKeysOptions = {}, store: Store = memoryStore()) {
  const clock = createTestClock(Date.UTC(2026, 5, 1));
  const core = createAuthCore({
    secret: "s".repeat(32), database: store, baseUrl: "https://app.example", clock,
    passwordHasher: argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } }),
    plugins: [apiKeys(options)],
  });
  const user = await core.api.createUser({ email: `u${Math.random().toString(36).slice(2)}@example.com`, password: "long enough pw" });
  return { core, clock, store, user, api: core.api };
}

describe("apiKeys options", () => {
  it("default to automation-friendly values: lk_ prefix, no quota, no rate limit, no expiry, nothing grantable", () => {
    expect(resolveApiKeysOptions()).toEqual({
      defaultPrefix: "lk_", defaultRemaining: null, defaultRateLimitMax: null, defaultRateLimitWindowMs: null,
      defaultExpiresInMs: null, grantablePermissions: {}, header: "x-api-key",
    });
    expect(resolveApiKeysOptions({ defaultRateLimitMax: 5, defaultRateLimitWindow: "1m", defaultExpiresIn: "30d", header: "X-Service-Key" })).toMatchObject({
      defaultRateLimitMax: 5, defaultRateLimitWindowMs: 60_000, defaultExpiresInMs: 30 * 86_400_000, header: "x-service-key",
    });
  });

  it("are validated when apiKeys() runs, naming apiKeys.<field>", () => {
    const cases: Array<[ApiKeysOptions, string]> = [
      [{ defaultPrefix: "lk-" }, "apiKeys.defaultPrefix"],
      [{ defaultPrefix: "" }, "apiKeys.defaultPrefix"],
      [{ defaultPrefix: "a".repeat(17) }, "apiKeys.defaultPrefix"],
      [{ defaultRemaining: 0 }, "apiKeys.defaultRemaining"],
      [{ defaultRemaining: 1.5 }, "apiKeys.defaultRemaining"],
      [{ defaultRemaining: 2 ** 31 }, "apiKeys.defaultRemaining"],
      [{ defaultRateLimitMax: 5 }, "apiKeys.defaultRateLimitWindow"],
      [{ defaultRateLimitWindow: "1m" }, "apiKeys.defaultRateLimitMax"],
      [{ defaultRateLimitMax: 0, defaultRateLimitWindow: "1m" }, "apiKeys.defaultRateLimitMax"],
      [{ defaultRateLimitMax: 5, defaultRateLimitWindow: "soon" as never }, "apiKeys.defaultRateLimitWindow"],
      [{ defaultRateLimitMax: 5, defaultRateLimitWindow: "400d" }, "apiKeys.defaultRateLimitWindow"],
      [{ defaultExpiresIn: -1 }, "apiKeys.defaultExpiresIn"],
      [{ defaultExpiresIn: "4000d" }, "apiKeys.defaultExpiresIn"],
      [{ grantablePermissions: { files: "read" } as never }, "apiKeys.grantablePermissions"],
      [{ grantablePermissions: { "*": ["read"] } }, "apiKeys.grantablePermissions"],
      [{ header: "x api key" }, "apiKeys.header"],
      [{ header: "Authorization" }, "apiKeys.header"],
      [{ header: "cookie" }, "apiKeys.header"],
    ];
    for (const [options, field] of cases) expect(fieldOf(() => apiKeys(options)), JSON.stringify(options)).toBe(field);
  });
});

describe("permissions", () => {
  it("pass only when every requested action of every requested resource is granted (all-of)", () => {
    const granted = { files: ["read", "write"], users: ["read"] };
    expect(hasPermissions(granted, {})).toBe(true);
    expect(hasPermissions(granted, { files: ["read", "write"], users: ["read"] })).toBe(true);
    expect(hasPermissions(granted, { files: ["read", "delete"] })).toBe(false);
    expect(hasPermissions(granted, { billing: [] })).toBe(false);
    expect(hasPermissions({}, { files: ["read"] })).toBe(false);
  });

  it("prototype keys are never granted: constructor, toString and __proto__ are not resources", () => {
    expect(hasPermissions({}, { constructor: [] })).toBe(false);
    expect(hasPermissions({}, { toString: [] })).toBe(false);
    expect(normalizePermissions(JSON.parse('{"__proto__": ["read"]}'))).toMatchObject({ ok: false });
  });

  it("are normalized: duplicates dropped, bad shapes refused", () => {
    expect(normalizePermissions({ files: ["read", "read", "write"] })).toEqual({ ok: true, value: { files: ["read", "write"] } });
    for (const bad of [null, [], "files", { files: [1] }, { files: ["a b"] }, { "": ["read"] }, { files: Array.from({ length: 65 }, (_, i) => `a${i}`) }]) {
      expect(normalizePermissions(bad).ok, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("key shape", () => {
  it("accepts any 1..16-char prefix plus 40 base62 characters, nothing else", () => {
    const body = "A1b2C3d4E5".repeat(4);
    expect(isWellFormedApiKey(`lk_${body}`)).toBe(true);
    expect(isWellFormedApiKey(`acme_prod_${body}`)).toBe(true);
    for (const bad of ["", body, `lk-${body}`, `lk_${body}x`.slice(0, 40), `lk_${body.slice(1)}é`, `${"p".repeat(17)}${body}`, `lk_${body}`.repeat(100), 42, null]) {
      expect(isWellFormedApiKey(bad), String(bad).slice(0, 30)).toBe(false);
    }
  });
});

describe("verify cost (the hot path)", () => {
  it("an unlimited key costs one read by hash and no write at all", async () => {
    const { store, calls } = countingStore();
    const { api, user } = await setup({}, store);
    const { key, apiKey } = await api.createApiKey({ userId: user.id });
    for (const k of Object.keys(calls)) delete calls[k];
    for (let i = 0; i < 3; i++) expect((await api.verifyApiKey({ key })).valid).toBe(true);
    expect(calls).toEqual({ findByHash: 3 });
    expect((await store.apiKeys.findById(apiKey.id))!.lastUsedAt).toBeNull();
  });

  it("a metered key costs one read and exactly one atomic consumeUse", async () => {
    const { store, calls } = countingStore();
    const { api, user } = await setup({}, store);
    const { key } = await api.createApiKey({ userId: user.id, remaining: 5 });
    for (const k of Object.keys(calls)) delete calls[k];
    expect(await api.verifyApiKey({ key })).toMatchObject({ valid: true, apiKey: { remaining: 4 } });
    expect(calls).toEqual({ findByHash: 1, consumeUse: 1 });
  });

  it("malformed input is refused before hashing or any store call", async () => {
    const { store, calls } = countingStore();
    const { api } = await setup({}, store);
    for (const k of Object.keys(calls)) delete calls[k];
    for (const key of ["", "x".repeat(10_000), "lk_ключ", null, undefined]) {
      expect(await api.verifyApiKey({ key })).toEqual({ valid: false, error: { code: "INVALID_API_KEY", message: expect.any(String) } });
    }
    expect(calls).toEqual({});
  });
});

describe("auth.api (trusted server code)", () => {
  it("creates keys for any user with quota, rate limit, any permissions and lifetime; stores only the hash", async () => {
    const { api, user, store, clock } = await setup();
    const { key, apiKey } = await api.createApiKey({
      userId: user.id, name: "ops", prefix: "ops_", remaining: 10, rateLimitMax: 3, rateLimitWindow: "1m",
      permissions: { admin: ["all"] }, expiresIn: "1d", metadata: { env: "prod" },
    });
    expect(key).toMatch(/^ops_[A-Za-z0-9]{40}$/);
    const stored = await store.apiKeys.findById(apiKey.id);
    expect(stored).toMatchObject({ keyHash: hashSecret(key), start: key.slice(0, 8), remaining: 10, rateLimitMax: 3, rateLimitWindowMs: 60_000, permissions: { admin: ["all"] } });
    expect(stored!.keyHash).not.toBe(key);
    expect(stored!.expiresAt!.getTime()).toBe(clock.now() + 86_400_000);
    expect(JSON.stringify(apiKey)).not.toContain(stored!.keyHash);
  });

  it("refuses unknown users and inconsistent limits", async () => {
    const { api, user } = await setup();
    await expect(api.createApiKey({ userId: "nobody" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(api.createApiKey({ userId: user.id, rateLimitMax: 5 })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(api.createApiKey({ userId: user.id, remaining: -1 })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(api.createApiKey({ userId: user.id, prefix: "no-dash" })).rejects.toBeInstanceOf(AuthError);
  });

  it("updates quota, rate limit and lifetime, scoped to an owner when given", async () => {
    const { api, user, clock } = await setup();
    const { key, apiKey } = await api.createApiKey({ userId: user.id });
    await expect(api.updateApiKey({ keyId: apiKey.id, userId: "someone-else", remaining: 1 })).rejects.toMatchObject({ code: "KEY_NOT_FOUND" });
    const updated = await api.updateApiKey({ keyId: apiKey.id, remaining: 1, rateLimitMax: 2, rateLimitWindow: 30, expiresIn: "1h" });
    expect(updated.apiKey).toMatchObject({ remaining: 1, rateLimitMax: 2, rateLimitWindowMs: 30_000, expiresAt: new Date(clock.now() + 3_600_000).toISOString() });
    expect((await api.verifyApiKey({ key })).valid).toBe(true);
    expect(await api.verifyApiKey({ key })).toMatchObject({ valid: false, error: { code: "USAGE_EXCEEDED", tryAgainIn: null } });
    const cleared = await api.updateApiKey({ keyId: apiKey.id, userId: user.id, remaining: null, rateLimitMax: null, expiresIn: null });
    expect(cleared.apiKey).toMatchObject({ remaining: null, rateLimitMax: null, rateLimitWindowMs: null, expiresAt: null });
    await expect(api.updateApiKey({ keyId: apiKey.id, rateLimitWindow: "1m" })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
  });

  it("deleteExpiredApiKeys sweeps every user's expired keys and emits one ApiKeyRevoked per key", async () => {
    const { core, api, user, clock, store } = await setup();
    const other = await api.createUser({ email: "other@example.com", password: "long enough pw" });
    const a = await api.createApiKey({ userId: user.id, expiresIn: 60 });
    const b = await api.createApiKey({ userId: other.id, expiresIn: 60 });
    const live = await api.createApiKey({ userId: other.id });
    const revoked: Array<{ keyId: string; userId: string }> = [];
    core.events.on("ApiKeyRevoked", (e) => void revoked.push({ keyId: e.keyId, userId: e.userId }));
    clock.advance(60_000);
    expect(await api.deleteExpiredApiKeys()).toEqual({ deleted: 2 });
    expect(revoked).toEqual(expect.arrayContaining([{ keyId: a.apiKey.id, userId: user.id }, { keyId: b.apiKey.id, userId: other.id }]));
    expect(await store.apiKeys.findById(live.apiKey.id)).not.toBeNull();
    expect(await api.deleteApiKey({ keyId: live.apiKey.id })).toEqual({ success: true });
    await expect(api.deleteApiKey({ keyId: live.apiKey.id })).rejects.toMatchObject({ code: "KEY_NOT_FOUND" });
  });

  it("without apiKeys() the methods reject with NOT_FOUND", async () => {
    const core = createAuthCore({ secret: "s".repeat(32), database: memoryStore(), baseUrl: "https://app.example" });
    await expect(core.api.createApiKey({ userId: "x" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
