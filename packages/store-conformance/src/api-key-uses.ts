import { beforeAll, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { apiKey, at, T0, uid } from "./fixtures.ts";
import { createOwner } from "./api-key-fixture.ts";
import { portOf } from "./plugin-ports.ts";

/** `api keys` cases: `consumeUse`, its refusals and their precedence, quotas and windows under parallel uses. */
export function registerApiKeyUseCases(getStore: () => Store): void {
  let store: Store;
  beforeAll(() => {
    store = getStore();
  });
  const owner = () => createOwner(store);

  it("consumeUse refusal precedence: disabled, then expired, then used up, then rate limited", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const all = apiKey(u.id, {
      enabled: false,
      expiresAt: at(-1),
      remaining: 0,
      rateLimitMax: 1,
      rateLimitWindowMs: 60_000,
      requestCount: 1,
      windowStart: T0,
    });
    const expiredUsed = apiKey(u.id, {
      expiresAt: T0,
      remaining: 0,
      rateLimitMax: 1,
      rateLimitWindowMs: 60_000,
      requestCount: 1,
      windowStart: T0,
    });
    const usedLimited = apiKey(u.id, {
      remaining: 0,
      rateLimitMax: 1,
      rateLimitWindowMs: 60_000,
      requestCount: 1,
      windowStart: T0,
    });
    for (const k of [all, expiredUsed, usedLimited]) await apiKeys.create(k);
    expect(await apiKeys.consumeUse(all.id, T0)).toMatchObject({ ok: false, reason: "KEY_DISABLED" });
    // expiresAt === now is already expired.
    expect(await apiKeys.consumeUse(expiredUsed.id, T0)).toMatchObject({ ok: false, reason: "KEY_EXPIRED" });
    expect(await apiKeys.consumeUse(usedLimited.id, T0)).toMatchObject({ ok: false, reason: "USAGE_EXCEEDED" });
  });

  it("a caller whose clock runs an hour ahead stamps the store's time (window, refill, last use), not its own", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    // Real time (the store's clock is real), not the fixtures' T0: the bound is the store's own clock.
    const ahead = new Date(Date.now() + 3_600_000);
    const k = apiKey(u.id, {
      createdAt: new Date(Date.now() - 86_400_000),
      remaining: 0,
      refillAmount: 5,
      refillIntervalMs: 3_600_000,
      lastRefillAt: new Date(Date.now() - 7_200_000),
      rateLimitMax: 1,
      rateLimitWindowMs: 60_000,
    });
    await apiKeys.create(k);
    const used = await apiKeys.consumeUse(k.id, ahead);
    expect(used.ok).toBe(true);
    const stamped = await apiKeys.findById(k.id);
    // Every stamp is within the store's lead (1 s) of its clock, not an hour ahead.
    const latest = Date.now() + 1_000 + 5_000;
    for (const field of ["windowStart", "lastRefillAt", "lastUsedAt"] as const)
      expect(stamped![field]!.getTime(), field).toBeLessThanOrEqual(latest);
    expect(stamped).toMatchObject({ remaining: 4, requestCount: 1 });
  });

  it("a refused use changes nothing, and RATE_LIMITED carries the window so the caller can say when to retry", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const k = apiKey(u.id, { remaining: 10, rateLimitMax: 2, rateLimitWindowMs: 60_000 });
    await apiKeys.create(k);
    expect((await apiKeys.consumeUse(k.id, T0)).ok).toBe(true);
    expect((await apiKeys.consumeUse(k.id, at(1_000))).ok).toBe(true);
    const before = await apiKeys.findById(k.id);
    expect(before).toMatchObject({ remaining: 8, requestCount: 2, windowStart: T0, lastUsedAt: at(1_000) });
    const refused = await apiKeys.consumeUse(k.id, at(2_000));
    expect(refused).toMatchObject({
      ok: false,
      reason: "RATE_LIMITED",
      key: { id: k.id, windowStart: T0, rateLimitWindowMs: 60_000 },
    });
    expect(await apiKeys.findById(k.id)).toEqual(before);
    const disabled = apiKey(u.id, { enabled: false, remaining: 3 });
    await apiKeys.create(disabled);
    await apiKeys.consumeUse(disabled.id, T0);
    expect(await apiKeys.findById(disabled.id)).toEqual(disabled);
  });

  it("updating name or permissions keeps the use counters (a patch never resets a window)", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const k = apiKey(u.id, { remaining: 5, rateLimitMax: 3, rateLimitWindowMs: 60_000 });
    await apiKeys.create(k);
    await apiKeys.consumeUse(k.id, T0);
    const updated = await apiKeys.update(k.id, u.id, { name: "new", permissions: {}, updatedAt: at(1) });
    expect(updated).toMatchObject({ name: "new", remaining: 4, requestCount: 1, windowStart: T0, lastUsedAt: T0 });
  });

  it("a disabled key under 10 parallel uses admits none and keeps its quota", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const k = apiKey(u.id, { enabled: false, remaining: 5 });
    await apiKeys.create(k);
    const results = await Promise.all(Array.from({ length: 10 }, () => apiKeys.consumeUse(k.id, T0)));
    expect(results.every((r) => !r.ok && r.reason === "KEY_DISABLED")).toBe(true);
    expect((await apiKeys.findById(k.id))!.remaining).toBe(5);
  });

  it("consumeUse refuses disabled, expired, used-up and unknown keys", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const disabled = apiKey(u.id, { enabled: false });
    const expired = apiKey(u.id, { expiresAt: at(-1) });
    const used = apiKey(u.id, { remaining: 0 });
    for (const k of [disabled, expired, used]) await apiKeys.create(k);
    expect(await apiKeys.consumeUse(disabled.id, T0)).toMatchObject({ ok: false, reason: "KEY_DISABLED" });
    expect(await apiKeys.consumeUse(expired.id, T0)).toMatchObject({ ok: false, reason: "KEY_EXPIRED" });
    expect(await apiKeys.consumeUse(used.id, T0)).toMatchObject({ ok: false, reason: "USAGE_EXCEEDED" });
    expect(await apiKeys.consumeUse(uid("k"), T0)).toEqual({ ok: false, reason: "NOT_FOUND", key: null });
  });

  it("consumeUse decrements remaining and records the use", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const k = apiKey(u.id, { remaining: 2 });
    await apiKeys.create(k);
    const r = await apiKeys.consumeUse(k.id, at(5));
    expect(r).toMatchObject({ ok: true, key: { remaining: 1, lastUsedAt: at(5) } });
    expect((await apiKeys.findById(k.id))!.remaining).toBe(1);
  });

  it("a key with remaining 1 under 10 parallel uses validates exactly once", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const k = apiKey(u.id, { remaining: 1 });
    await apiKeys.create(k);
    const results = await Promise.all(Array.from({ length: 10 }, () => apiKeys.consumeUse(k.id, T0)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === "USAGE_EXCEEDED")).toHaveLength(9);
    expect((await apiKeys.findById(k.id))!.remaining).toBe(0);
  });

  it("a per-key limit of 5 per window under 20 parallel uses admits exactly 5, then a new window admits again", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const k = apiKey(u.id, { rateLimitMax: 5, rateLimitWindowMs: 60_000 });
    await apiKeys.create(k);
    const results = await Promise.all(Array.from({ length: 20 }, () => apiKeys.consumeUse(k.id, T0)));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(results.filter((r) => !r.ok && r.reason === "RATE_LIMITED")).toHaveLength(15);
    expect(await apiKeys.consumeUse(k.id, at(30_000))).toMatchObject({ ok: false, reason: "RATE_LIMITED" });
    expect(await apiKeys.consumeUse(k.id, at(60_000))).toMatchObject({
      ok: true,
      key: { requestCount: 1, windowStart: at(60_000) },
    });
  });

  it("quota and window together: 20 parallel uses of remaining 3, limit 5 admit exactly 3", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const k = apiKey(u.id, { remaining: 3, rateLimitMax: 5, rateLimitWindowMs: 60_000 });
    await apiKeys.create(k);
    const results = await Promise.all(Array.from({ length: 20 }, () => apiKeys.consumeUse(k.id, T0)));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(await apiKeys.findById(k.id)).toMatchObject({ remaining: 0, requestCount: 3 });
  });
}
