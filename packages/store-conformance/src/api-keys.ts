import { beforeAll, describe, expect, it } from "vitest";
import type { StoreWith } from "./conformance.ts";
import { apiKey, at, T0, uid, user } from "./fixtures.ts";

/** Conformance of the `api keys` port; registered by `runStoreConformance`. */
export function describeApiKeys(getStore: () => StoreWith<"apiKeys">): void {
  describe("api keys", () => {
    let store: StoreWith<"apiKeys">;
    beforeAll(() => {
      store = getStore();
    });

    async function owner() {
      const u = user();
      await store.users.create(u, []);
      return u;
    }

    it("creates, finds by hash and id, updates and deletes only for the owner", async () => {
      const u = await owner();
      const k = apiKey(u.id, { expiresAt: at(60_000) });
      await store.apiKeys.create(k);
      expect(await store.apiKeys.findByHash(k.keyHash)).toEqual(k);
      expect(await store.apiKeys.findById(k.id)).toEqual(k);
      expect(await store.apiKeys.update(k.id, uid("other"), { name: "x" })).toBeNull();
      const updated = await store.apiKeys.update(k.id, u.id, {
        name: "renamed",
        enabled: false,
        metadata: {},
        permissions: { a: ["b"] },
        updatedAt: at(1),
      });
      expect(updated).toEqual({
        ...k,
        name: "renamed",
        enabled: false,
        metadata: {},
        permissions: { a: ["b"] },
        updatedAt: at(1),
      });
      expect(await store.apiKeys.update(k.id, null, { remaining: 5 })).toMatchObject({ remaining: 5 });
      expect(await store.apiKeys.delete(k.id, uid("other"))).toBeNull();
      expect((await store.apiKeys.delete(k.id, u.id))?.id).toBe(k.id);
      expect(await store.apiKeys.findByHash(k.keyHash)).toBeNull();
      expect(await store.apiKeys.delete(k.id, null)).toBeNull();
    });

    it("lists newest first with keyset pagination", async () => {
      const u = await owner();
      const keys = Array.from({ length: 5 }, (_, i) => apiKey(u.id, { createdAt: at(i * 1000) }));
      for (const k of keys) await store.apiKeys.create(k);
      const first = await store.apiKeys.listByUser(u.id, { limit: 2, cursor: null });
      expect(first.items.map((k) => k.id)).toEqual([keys[4]!.id, keys[3]!.id]);
      expect(first.nextCursor).not.toBeNull();
      const second = await store.apiKeys.listByUser(u.id, { limit: 2, cursor: first.nextCursor });
      expect(second.items.map((k) => k.id)).toEqual([keys[2]!.id, keys[1]!.id]);
      const third = await store.apiKeys.listByUser(u.id, { limit: 2, cursor: second.nextCursor });
      expect(third.items.map((k) => k.id)).toEqual([keys[0]!.id]);
      expect(third.nextCursor).toBeNull();
    });

    it("sweeps expired keys of one user or of all users", async () => {
      const a = await owner();
      const b = await owner();
      const ea = apiKey(a.id, { expiresAt: at(-1) });
      const eb = apiKey(b.id, { expiresAt: at(-1) });
      const live = apiKey(a.id, { expiresAt: at(60_000) });
      const eternal = apiKey(a.id, { expiresAt: null });
      const boundary = apiKey(b.id, { expiresAt: T0 });
      for (const k of [ea, eb, live, eternal, boundary]) await store.apiKeys.create(k);
      expect(await store.apiKeys.deleteExpired(T0, a.id)).toEqual([{ id: ea.id, userId: a.id }]);
      expect(await store.apiKeys.findById(eb.id)).not.toBeNull();
      const swept = await store.apiKeys.deleteExpired(T0, null);
      // Other tests share the store, so only this test's keys are checked: expiresAt === now counts as expired.
      expect(swept).toEqual(
        expect.arrayContaining([
          { id: eb.id, userId: b.id },
          { id: boundary.id, userId: b.id },
        ]),
      );
      expect(swept.map((k) => k.id)).not.toContain(ea.id);
      expect(await store.apiKeys.findById(eb.id)).toBeNull();
      expect(await store.apiKeys.findByHash(boundary.keyHash)).toBeNull();
      expect(await store.apiKeys.findById(live.id)).not.toBeNull();
      expect(await store.apiKeys.findById(eternal.id)).not.toBeNull();
      expect(await store.apiKeys.deleteExpired(T0, a.id)).toEqual([]);
    });

    it("lists only the owner's keys; a page past the end is empty", async () => {
      const a = await owner();
      const b = await owner();
      const mine = apiKey(a.id);
      await store.apiKeys.create(mine);
      await store.apiKeys.create(apiKey(b.id));
      const page = await store.apiKeys.listByUser(a.id, { limit: 10, cursor: null });
      expect(page).toEqual({ items: [mine], nextCursor: null });
      expect((await store.apiKeys.listByUser(uid("nobody"), { limit: 10, cursor: null })).items).toEqual([]);
    });

    it("consumeUse refusal precedence: disabled, then expired, then used up, then rate limited", async () => {
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
      for (const k of [all, expiredUsed, usedLimited]) await store.apiKeys.create(k);
      expect(await store.apiKeys.consumeUse(all.id, T0)).toMatchObject({ ok: false, reason: "KEY_DISABLED" });
      // expiresAt === now is already expired.
      expect(await store.apiKeys.consumeUse(expiredUsed.id, T0)).toMatchObject({ ok: false, reason: "KEY_EXPIRED" });
      expect(await store.apiKeys.consumeUse(usedLimited.id, T0)).toMatchObject({ ok: false, reason: "USAGE_EXCEEDED" });
    });

    it("a refused use changes nothing, and RATE_LIMITED carries the window so the caller can say when to retry", async () => {
      const u = await owner();
      const k = apiKey(u.id, { remaining: 10, rateLimitMax: 2, rateLimitWindowMs: 60_000 });
      await store.apiKeys.create(k);
      expect((await store.apiKeys.consumeUse(k.id, T0)).ok).toBe(true);
      expect((await store.apiKeys.consumeUse(k.id, at(1_000))).ok).toBe(true);
      const before = await store.apiKeys.findById(k.id);
      expect(before).toMatchObject({ remaining: 8, requestCount: 2, windowStart: T0, lastUsedAt: at(1_000) });
      const refused = await store.apiKeys.consumeUse(k.id, at(2_000));
      expect(refused).toMatchObject({
        ok: false,
        reason: "RATE_LIMITED",
        key: { id: k.id, windowStart: T0, rateLimitWindowMs: 60_000 },
      });
      expect(await store.apiKeys.findById(k.id)).toEqual(before);
      const disabled = apiKey(u.id, { enabled: false, remaining: 3 });
      await store.apiKeys.create(disabled);
      await store.apiKeys.consumeUse(disabled.id, T0);
      expect(await store.apiKeys.findById(disabled.id)).toEqual(disabled);
    });

    it("updating name or permissions keeps the use counters (a patch never resets a window)", async () => {
      const u = await owner();
      const k = apiKey(u.id, { remaining: 5, rateLimitMax: 3, rateLimitWindowMs: 60_000 });
      await store.apiKeys.create(k);
      await store.apiKeys.consumeUse(k.id, T0);
      const updated = await store.apiKeys.update(k.id, u.id, { name: "new", permissions: {}, updatedAt: at(1) });
      expect(updated).toMatchObject({ name: "new", remaining: 4, requestCount: 1, windowStart: T0, lastUsedAt: T0 });
    });

    it("a disabled key under 10 parallel uses admits none and keeps its quota", async () => {
      const u = await owner();
      const k = apiKey(u.id, { enabled: false, remaining: 5 });
      await store.apiKeys.create(k);
      const results = await Promise.all(Array.from({ length: 10 }, () => store.apiKeys.consumeUse(k.id, T0)));
      expect(results.every((r) => !r.ok && r.reason === "KEY_DISABLED")).toBe(true);
      expect((await store.apiKeys.findById(k.id))!.remaining).toBe(5);
    });

    it("consumeUse refuses disabled, expired, used-up and unknown keys", async () => {
      const u = await owner();
      const disabled = apiKey(u.id, { enabled: false });
      const expired = apiKey(u.id, { expiresAt: at(-1) });
      const used = apiKey(u.id, { remaining: 0 });
      for (const k of [disabled, expired, used]) await store.apiKeys.create(k);
      expect(await store.apiKeys.consumeUse(disabled.id, T0)).toMatchObject({ ok: false, reason: "KEY_DISABLED" });
      expect(await store.apiKeys.consumeUse(expired.id, T0)).toMatchObject({ ok: false, reason: "KEY_EXPIRED" });
      expect(await store.apiKeys.consumeUse(used.id, T0)).toMatchObject({ ok: false, reason: "USAGE_EXCEEDED" });
      expect(await store.apiKeys.consumeUse(uid("k"), T0)).toEqual({ ok: false, reason: "NOT_FOUND", key: null });
    });

    it("consumeUse decrements remaining and records the use", async () => {
      const u = await owner();
      const k = apiKey(u.id, { remaining: 2 });
      await store.apiKeys.create(k);
      const r = await store.apiKeys.consumeUse(k.id, at(5));
      expect(r).toMatchObject({ ok: true, key: { remaining: 1, lastUsedAt: at(5) } });
      expect((await store.apiKeys.findById(k.id))!.remaining).toBe(1);
    });

    it("a key with remaining 1 under 10 parallel uses validates exactly once", async () => {
      const u = await owner();
      const k = apiKey(u.id, { remaining: 1 });
      await store.apiKeys.create(k);
      const results = await Promise.all(Array.from({ length: 10 }, () => store.apiKeys.consumeUse(k.id, T0)));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok && r.reason === "USAGE_EXCEEDED")).toHaveLength(9);
      expect((await store.apiKeys.findById(k.id))!.remaining).toBe(0);
    });

    it("a per-key limit of 5 per window under 20 parallel uses admits exactly 5, then a new window admits again", async () => {
      const u = await owner();
      const k = apiKey(u.id, { rateLimitMax: 5, rateLimitWindowMs: 60_000 });
      await store.apiKeys.create(k);
      const results = await Promise.all(Array.from({ length: 20 }, () => store.apiKeys.consumeUse(k.id, T0)));
      expect(results.filter((r) => r.ok)).toHaveLength(5);
      expect(results.filter((r) => !r.ok && r.reason === "RATE_LIMITED")).toHaveLength(15);
      expect(await store.apiKeys.consumeUse(k.id, at(30_000))).toMatchObject({ ok: false, reason: "RATE_LIMITED" });
      expect(await store.apiKeys.consumeUse(k.id, at(60_000))).toMatchObject({
        ok: true,
        key: { requestCount: 1, windowStart: at(60_000) },
      });
    });

    it("quota and window together: 20 parallel uses of remaining 3, limit 5 admit exactly 3", async () => {
      const u = await owner();
      const k = apiKey(u.id, { remaining: 3, rateLimitMax: 5, rateLimitWindowMs: 60_000 });
      await store.apiKeys.create(k);
      const results = await Promise.all(Array.from({ length: 20 }, () => store.apiKeys.consumeUse(k.id, T0)));
      expect(results.filter((r) => r.ok)).toHaveLength(3);
      expect(await store.apiKeys.findById(k.id)).toMatchObject({ remaining: 0, requestCount: 3 });
    });
  });
}
