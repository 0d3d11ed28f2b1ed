import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { createAuthCore } from "../auth/auth-core.ts";
import { AuthError } from "../errors/errors.ts";
import { createTestClock, webCryptoRandom } from "../ports/clock.ts";
import { hashSecret } from "../crypto/crypto.ts";
import { argon2idHasher } from "../password/argon2.ts";
import type { FullStore } from "../ports/store.ts";
import { apiKeys } from "./plugin.ts";
import type { ApiKeysOptions } from "./options.ts";

/**
 * A memory store that counts calls to the API-key port (by method name) and to the user port (`users.<method>`),
 * to pin how many reads and writes a verify costs.
 */
function countingStore(): { store: FullStore; calls: Record<string, number> } {
  const inner = memoryStore();
  const calls: Record<string, number> = {};
  const counting = <P extends object>(port: P, prefix: string): P =>
    new Proxy(port, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls[prefix + String(name)] = (calls[prefix + String(name)] ?? 0) + 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return { store: { ...inner, apiKeys: counting(inner.apiKeys, ""), users: counting(inner.users, "users.") }, calls };
}

async function setup(options: ApiKeysOptions = {}, store: FullStore = memoryStore()) {
  const clock = createTestClock(Date.UTC(2026, 5, 1));
  const core = createAuthCore({
    secret: "s".repeat(32),
    database: store,
    baseUrl: "https://app.example",
    clock,
    passwordHasher: argon2idHasher({
      random: webCryptoRandom,
      params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
    }),
    plugins: [apiKeys(options)],
  });
  const user = await core.api.createUser({
    email: `u${Math.random().toString(36).slice(2)}@example.com`,
    password: "long enough pw",
  });
  return { core, clock, store, user, api: core.api };
}

describe("verify cost (the hot path)", () => {
  it("an unlimited key costs one read by hash (its owner with it), plus one lastUsedAt write per lastUsedResolution", async () => {
    const { store, calls } = countingStore();
    const { api, user, clock } = await setup({ lastUsedResolution: "1m" }, store);
    const { key, apiKey } = await api.createApiKey({ userId: user.id });
    for (const k of Object.keys(calls)) delete calls[k];
    const first = await api.verifyApiKey({ key });
    expect(first).toMatchObject({ valid: true, apiKey: { lastUsedAt: new Date(clock.now()).toISOString() } });
    for (let i = 0; i < 3; i++) expect((await api.verifyApiKey({ key })).valid).toBe(true);
    expect(calls).toEqual({ findByHashWithOwner: 4, touchLastUsed: 1 });
    const usedAt = new Date(clock.now());
    clock.advance(59_999);
    expect((await api.verifyApiKey({ key })).valid).toBe(true);
    expect(calls).toEqual({ findByHashWithOwner: 5, touchLastUsed: 1 });
    expect((await store.apiKeys.findById(apiKey.id))!.lastUsedAt).toEqual(usedAt);
    clock.advance(1);
    expect((await api.verifyApiKey({ key })).valid).toBe(true);
    expect(calls).toEqual({ findByHashWithOwner: 6, touchLastUsed: 2, findById: 1 });
    expect((await store.apiKeys.findById(apiKey.id))!.lastUsedAt).toEqual(new Date(clock.now()));
  });

  it("a metered key costs one read (its owner with it) and exactly one atomic consumeUse", async () => {
    const { store, calls } = countingStore();
    const { api, user } = await setup({}, store);
    const { key } = await api.createApiKey({ userId: user.id, remaining: 5 });
    for (const k of Object.keys(calls)) delete calls[k];
    expect(await api.verifyApiKey({ key })).toMatchObject({ valid: true, apiKey: { remaining: 4 } });
    expect(calls).toEqual({ findByHashWithOwner: 1, consumeUse: 1 });
  });

  it("malformed input is refused before hashing or any store call", async () => {
    const { store, calls } = countingStore();
    const { api } = await setup({}, store);
    for (const k of Object.keys(calls)) delete calls[k];
    for (const key of ["", "x".repeat(10_000), "lk_ключ", null, undefined]) {
      expect(await api.verifyApiKey({ key })).toEqual({
        valid: false,
        error: { code: "INVALID_API_KEY", message: expect.any(String) },
      });
    }
    expect(calls).toEqual({});
  });
});

describe("auth.api (trusted server code)", () => {
  it("creates keys for any user with quota, rate limit, any permissions and lifetime; stores only the hash", async () => {
    const { api, user, store, clock } = await setup();
    const { key, apiKey } = await api.createApiKey({
      userId: user.id,
      name: "ops",
      prefix: "ops_",
      remaining: 10,
      rateLimitMax: 3,
      rateLimitWindow: "1m",
      permissions: { admin: ["all"] },
      expiresIn: "1d",
      metadata: { env: "prod" },
    });
    expect(key).toMatch(/^ops_[A-Za-z0-9]{40}$/);
    const stored = await store.apiKeys.findById(apiKey.id);
    expect(stored).toMatchObject({
      keyHash: hashSecret(key),
      start: key.slice(0, 8),
      remaining: 10,
      rateLimitMax: 3,
      rateLimitWindowMs: 60_000,
      permissions: { admin: ["all"] },
    });
    expect(stored!.keyHash).not.toBe(key);
    expect(stored!.expiresAt!.getTime()).toBe(clock.now() + 86_400_000);
    expect(JSON.stringify(apiKey)).not.toContain(stored!.keyHash);
  });

  it("refuses unknown users and inconsistent limits", async () => {
    const { api, user } = await setup();
    await expect(api.createApiKey({ userId: "nobody" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(api.createApiKey({ userId: user.id, rateLimitMax: 5 })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    await expect(api.createApiKey({ userId: user.id, remaining: -1 })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    await expect(api.createApiKey({ userId: user.id, prefix: "no-dash" })).rejects.toBeInstanceOf(AuthError);
  });

  it("updates quota, rate limit and lifetime, scoped to an owner when given", async () => {
    const { api, user, clock } = await setup();
    const { key, apiKey } = await api.createApiKey({ userId: user.id });
    await expect(api.updateApiKey({ keyId: apiKey.id, userId: "someone-else", remaining: 1 })).rejects.toMatchObject({
      code: "KEY_NOT_FOUND",
    });
    const updated = await api.updateApiKey({
      keyId: apiKey.id,
      remaining: 1,
      rateLimitMax: 2,
      rateLimitWindow: 30,
      expiresIn: "1h",
    });
    expect(updated.apiKey).toMatchObject({
      remaining: 1,
      rateLimitMax: 2,
      rateLimitWindowMs: 30_000,
      expiresAt: new Date(clock.now() + 3_600_000).toISOString(),
    });
    expect((await api.verifyApiKey({ key })).valid).toBe(true);
    expect(await api.verifyApiKey({ key })).toMatchObject({
      valid: false,
      error: { code: "USAGE_EXCEEDED", tryAgainIn: null },
    });
    const cleared = await api.updateApiKey({
      keyId: apiKey.id,
      userId: user.id,
      remaining: null,
      rateLimitMax: null,
      expiresIn: null,
    });
    expect(cleared.apiKey).toMatchObject({
      remaining: null,
      rateLimitMax: null,
      rateLimitWindowMs: null,
      expiresAt: null,
    });
    await expect(api.updateApiKey({ keyId: apiKey.id, rateLimitWindow: "1m" })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
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
    expect(revoked).toEqual(
      expect.arrayContaining([
        { keyId: a.apiKey.id, userId: user.id },
        { keyId: b.apiKey.id, userId: other.id },
      ]),
    );
    expect(await store.apiKeys.findById(live.apiKey.id)).not.toBeNull();
    expect(await api.deleteApiKey({ keyId: live.apiKey.id })).toEqual({ success: true });
    await expect(api.deleteApiKey({ keyId: live.apiKey.id })).rejects.toMatchObject({ code: "KEY_NOT_FOUND" });
  });

  it("without apiKeys() the methods reject with NOT_FOUND", async () => {
    const core = createAuthCore({ secret: "s".repeat(32), database: memoryStore(), baseUrl: "https://app.example" });
    // @ts-expect-error: apiKeys() is not installed, so auth.api has no createApiKey (JavaScript callers get NOT_FOUND).
    await expect(core.api.createApiKey({ userId: "x" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
