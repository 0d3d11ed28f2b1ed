import { beforeAll, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { apiKey, at, T0, uid } from "./fixtures.ts";
import { createOwner } from "./api-key-fixture.ts";
import { portOf } from "./plugin-ports.ts";

/** `api keys` cases: the last-use stamp, refills (also under concurrent uses) and the use rule's edges. */
export function registerApiKeyRefillCases(getStore: () => Store): void {
  let store: Store;
  beforeAll(() => {
    store = getStore();
  });
  const owner = () => createOwner(store);

  it("touchLastUsed writes at most once per resolution", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const k = apiKey(u.id);
    await apiKeys.create(k);
    await apiKeys.touchLastUsed(k.id, T0, 60_000);
    expect((await apiKeys.findById(k.id))!.lastUsedAt).toEqual(T0);
    await apiKeys.touchLastUsed(k.id, at(59_999), 60_000);
    expect((await apiKeys.findById(k.id))!.lastUsedAt).toEqual(T0);
    await apiKeys.touchLastUsed(k.id, at(60_000), 60_000);
    expect(await apiKeys.findById(k.id)).toEqual({ ...k, lastUsedAt: at(60_000) });
    await apiKeys.touchLastUsed(uid("k"), T0, 60_000);
  });

  it("a used-up key refills when its interval passed, in the same write that spends the use", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const k = apiKey(u.id, { remaining: 0, refillAmount: 3, refillIntervalMs: 60_000, lastRefillAt: T0 });
    await apiKeys.create(k);
    expect(await apiKeys.consumeUse(k.id, at(59_999))).toMatchObject({ ok: false, reason: "USAGE_EXCEEDED" });
    expect(await apiKeys.consumeUse(k.id, at(60_000))).toMatchObject({
      ok: true,
      key: { remaining: 2, lastRefillAt: at(60_000), lastUsedAt: at(60_000) },
    });
    // Not used up: the refill still happens when due (back to refillAmount, not added to what is left).
    expect(await apiKeys.consumeUse(k.id, at(120_000))).toMatchObject({
      ok: true,
      key: { remaining: 2, lastRefillAt: at(120_000) },
    });
    // Without lastRefillAt (a key from before refills existed), the interval counts from creation.
    const legacy = apiKey(u.id, { remaining: 0, refillAmount: 2, refillIntervalMs: 60_000, createdAt: T0 });
    await apiKeys.create(legacy);
    expect(await apiKeys.consumeUse(legacy.id, at(60_000))).toMatchObject({
      ok: true,
      key: { remaining: 1, lastRefillAt: at(60_000) },
    });
  });

  it("use rule edges: a window ends exactly at its end, a due refill never overrides disabled, expired or a full window", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    // The window [T0, T0 + 60s) is still running 1 ms before its end and has ended exactly at it.
    const windowed = apiKey(u.id, { rateLimitMax: 1, rateLimitWindowMs: 60_000, requestCount: 1, windowStart: T0 });
    // Used up with a refill due: each of these is refused for its other reason, and nothing is written.
    const refill = { remaining: 0, refillAmount: 5, refillIntervalMs: 60_000, lastRefillAt: at(-60_000) };
    const disabled = apiKey(u.id, { ...refill, enabled: false, expiresAt: T0 });
    const expired = apiKey(u.id, { ...refill, expiresAt: T0 });
    const full = apiKey(u.id, {
      ...refill,
      rateLimitMax: 2,
      rateLimitWindowMs: 60_000,
      requestCount: 2,
      windowStart: T0,
    });
    // A limit of 0 admits nothing, even in a fresh window; a limit without a window length is no limit.
    const zero = apiKey(u.id, { rateLimitMax: 0, rateLimitWindowMs: 60_000 });
    const halfLimit = apiKey(u.id, { rateLimitMax: 1, rateLimitWindowMs: null, requestCount: 7 });
    // A refill amount without an interval never refills.
    const noInterval = apiKey(u.id, { remaining: 0, refillAmount: 5, refillIntervalMs: null });
    for (const k of [windowed, disabled, expired, full, zero, halfLimit, noInterval]) await apiKeys.create(k);
    expect(await apiKeys.consumeUse(windowed.id, at(59_999))).toMatchObject({ ok: false, reason: "RATE_LIMITED" });
    expect(await apiKeys.consumeUse(windowed.id, at(60_000))).toMatchObject({
      ok: true,
      key: { requestCount: 1, windowStart: at(60_000) },
    });
    expect(await apiKeys.consumeUse(disabled.id, T0)).toMatchObject({ ok: false, reason: "KEY_DISABLED" });
    expect(await apiKeys.consumeUse(expired.id, T0)).toMatchObject({ ok: false, reason: "KEY_EXPIRED" });
    expect(await apiKeys.consumeUse(full.id, at(59_999))).toMatchObject({ ok: false, reason: "RATE_LIMITED" });
    for (const k of [disabled, expired, full]) expect(await apiKeys.findById(k.id)).toEqual(k);
    expect(await apiKeys.consumeUse(zero.id, T0)).toMatchObject({ ok: false, reason: "RATE_LIMITED" });
    expect(await apiKeys.consumeUse(halfLimit.id, T0)).toMatchObject({
      ok: true,
      key: { requestCount: 7, windowStart: null, lastUsedAt: T0 },
    });
    expect(await apiKeys.consumeUse(noInterval.id, at(10 * 86_400_000))).toMatchObject({
      ok: false,
      reason: "USAGE_EXCEEDED",
    });
  });

  it("20 concurrent uses at the refill instant refill once and admit exactly refillAmount", async (context) => {
    const apiKeys = portOf(store, "apiKeys", context);
    const u = await owner();
    const k = apiKey(u.id, { remaining: 0, refillAmount: 5, refillIntervalMs: 60_000, lastRefillAt: T0 });
    await apiKeys.create(k);
    // Two callers' clocks a few ms apart, both past the refill instant.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => apiKeys.consumeUse(k.id, at(60_000 + (i % 2) * 5))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(results.filter((r) => !r.ok && r.reason === "USAGE_EXCEEDED")).toHaveLength(15);
    const row = (await apiKeys.findById(k.id))!;
    expect(row.remaining).toBe(0);
    expect([at(60_000).getTime(), at(60_005).getTime()]).toContain(row.lastRefillAt!.getTime());
  });
}
