import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { apiKeys } from "../api-key/plugin.ts";
import { auditLog } from "../audit-log/plugin.ts";
import { createAuthCore } from "../auth/auth-core.ts";
import { createTestClock, webCryptoRandom } from "../ports/clock.ts";
import { argon2idHasher } from "../password/argon2.ts";
import type { FullStore } from "../ports/store.ts";

// Issue 27, "sweeps that never stall": every kind of row goes in batches with a turn of the event loop between two,
// API keys and rerolled values included, and announcing a batch of revoked keys gives the loop a turn too. The
// memory store answers every call within the same turn, so an immediate scheduled before the sweep can only run
// during it if the sweep yields.

const DAY = 86_400_000;

/** The memory store with the limits the API-key sweep passes recorded. */
function recordingStore(): { store: FullStore; limits: { expired: unknown[]; rerolls: unknown[] } } {
  const inner = memoryStore();
  const limits = { expired: [] as unknown[], rerolls: [] as unknown[] };
  const keys = inner.apiKeys;
  return {
    store: {
      ...inner,
      apiKeys: {
        ...keys,
        deleteExpired: (now, userId, limit) => {
          limits.expired.push(limit);
          return keys.deleteExpired(now, userId, limit);
        },
        deleteExpiredRerolls: (now, limit) => {
          limits.rerolls.push(limit);
          return keys.deleteExpiredRerolls(now, limit);
        },
      },
    },
    limits,
  };
}

/** `sweepBatchSize`: the store's own default, as a libSQL file store answers one. */
async function setup(sweepBatchSize?: number) {
  const clock = createTestClock(Date.UTC(2026, 5, 1));
  const recorded = recordingStore();
  const { limits } = recorded;
  const store: FullStore = sweepBatchSize === undefined ? recorded.store : { ...recorded.store, sweepBatchSize };
  const core = createAuthCore({
    secret: "s".repeat(32),
    database: store,
    baseUrl: "https://app.example",
    clock,
    passwordHasher: argon2idHasher({
      random: webCryptoRandom,
      params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
    }),
    plugins: [apiKeys({ maxPerUser: 1000 }), auditLog()],
  });
  const user = await core.api.createUser({ email: "owner@example.com", password: "long enough pw" });
  return { core, clock, store, limits, user };
}

/** Resolves `fn`'s result and how many times an immediate, re-armed after each run, ran while `fn` was pending. */
async function turnsDuring<T>(fn: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await fn();
  done = true;
  return { result, turns };
}

describe("auth.api.sweep() of API keys", () => {
  it("deletes expired keys in batches of batchSize, announces each, and gives the event loop a turn between two", async () => {
    const { core, clock, store, limits, user } = await setup();
    const created = [];
    for (let i = 0; i < 25; i++) created.push(await core.api.createApiKey({ userId: user.id, expiresIn: "1h" }));
    const live = await core.api.createApiKey({ userId: user.id });
    const revoked: string[] = [];
    core.events.on("ApiKeyRevoked", (e) => void revoked.push(e.keyId));
    clock.advance(2 * 60 * 60 * 1000);

    const { result, turns } = await turnsDuring(() => core.api.sweep({ batchSize: 10 }));
    expect(result.apiKeys).toBe(25);
    // 10, 10, 5: the short batch ends the loop.
    expect(limits.expired).toEqual([10, 10, 10]);
    expect(new Set(revoked)).toEqual(new Set(created.map((k) => k.apiKey.id)));
    for (const k of created) expect(await store.apiKeys.findById(k.apiKey.id)).toBeNull();
    expect(await store.apiKeys.findById(live.apiKey.id)).not.toBeNull();
    // A turn between two batches.
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it("gives the event loop a turn while announcing one large batch of revoked keys", async () => {
    const { core, clock, limits, user } = await setup();
    for (let i = 0; i < 250; i++) await core.api.createApiKey({ userId: user.id, expiresIn: "1h" });
    clock.advance(2 * 60 * 60 * 1000);
    const { result, turns } = await turnsDuring(() => core.api.sweep({ batchSize: 1000 }));
    expect(result.apiKeys).toBe(250);
    expect(limits.expired).toEqual([1000]);
    // One batch: the turns come from announcing its 250 events (each writes an audit row), 25 at a time.
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it("clears rerolled values whose grace ended in batches, and the plugin's own sweep batches too", async () => {
    const { core, clock, store, limits, user } = await setup();
    const rerolled = [];
    for (let i = 0; i < 5; i++) {
      const k = await core.api.createApiKey({ userId: user.id });
      await core.api.rerollApiKey({ keyId: k.apiKey.id, gracePeriod: "1h" });
      rerolled.push(k);
    }
    clock.advance(DAY);
    const report = await core.api.sweep({ batchSize: 2 });
    expect(report.apiKeyRerolls).toBe(5);
    expect(limits.rerolls).toEqual([2, 2, 2]);
    for (const k of rerolled) expect((await store.apiKeys.findById(k.apiKey.id))?.previousKeyHash).toBeNull();

    // The plugin's methods, without a batch size, go through the same batches (1,000 rows each).
    limits.expired.length = 0;
    limits.rerolls.length = 0;
    expect(await core.api.deleteExpiredApiKeys()).toEqual({ deleted: 0 });
    expect(await core.api.deleteExpiredRerolls()).toEqual({ cleared: 0 });
    expect(limits).toEqual({ expired: [1000], rerolls: [1000] });
  });
});

describe("the store's own batch size", () => {
  it("is what a sweep without batchSize uses, in auth.api.sweep() and the plugin's methods; batchSize still wins", async () => {
    const { core, clock, limits, user } = await setup(3);
    for (let i = 0; i < 7; i++) await core.api.createApiKey({ userId: user.id, expiresIn: "1h" });
    clock.advance(2 * 60 * 60 * 1000);

    expect((await core.api.sweep()).apiKeys).toBe(7);
    expect(limits).toEqual({ expired: [3, 3, 3], rerolls: [3] });
    limits.expired.length = 0;
    limits.rerolls.length = 0;
    expect(await core.api.deleteExpiredApiKeys()).toEqual({ deleted: 0 });
    expect(await core.api.deleteExpiredRerolls()).toEqual({ cleared: 0 });
    expect(limits).toEqual({ expired: [3], rerolls: [3] });
    limits.expired.length = 0;
    await core.api.sweep({ batchSize: 5 });
    expect(limits.expired).toEqual([5]);
  });
});
