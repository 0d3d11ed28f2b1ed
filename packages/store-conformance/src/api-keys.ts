import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { apiKey, at, T0, uid, user } from "./fixtures.ts";
import { portOf } from "./plugin-ports.ts";

/** Conformance of the `api keys` port; registered by `runStoreConformance`. */
export function describeApiKeys(getStore: () => Store): void {
  describe("api keys", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    async function owner() {
      const u = user();
      await store.users.create(u, []);
      return u;
    }

    it("creates, finds by hash and id, updates and deletes only for the owner", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const u = await owner();
      const k = apiKey(u.id, { expiresAt: at(60_000) });
      await apiKeys.create(k);
      expect(await apiKeys.findByHash(k.keyHash)).toEqual(k);
      expect(await apiKeys.findById(k.id)).toEqual(k);
      expect(await apiKeys.update(k.id, uid("other"), { name: "x" })).toBeNull();
      const updated = await apiKeys.update(k.id, u.id, {
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
      expect(await apiKeys.update(k.id, null, { remaining: 5 })).toMatchObject({ remaining: 5 });
      expect(await apiKeys.delete(k.id, uid("other"))).toBeNull();
      expect((await apiKeys.delete(k.id, u.id))?.id).toBe(k.id);
      expect(await apiKeys.findByHash(k.keyHash)).toBeNull();
      expect(await apiKeys.delete(k.id, null)).toBeNull();
    });

    it("create for an owner that is gone answers owner-gone and writes nothing, with or without a cap", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const u = await owner();
      expect(await store.users.delete(u.id)).toBe(true);
      for (const maxPerUser of [undefined, null, 5]) {
        const k = apiKey(u.id);
        expect(await apiKeys.create(k, maxPerUser === undefined ? undefined : { maxPerUser })).toBe("owner-gone");
        expect(await apiKeys.findById(k.id)).toBeNull();
      }
      expect((await apiKeys.listByUser(u.id, { limit: 10, cursor: null })).items).toEqual([]);
      // An owner that exists still gets the key.
      const alive = await owner();
      expect(await apiKeys.create(apiKey(alive.id), { maxPerUser: 5 })).toBe(true);
    });

    it("lists newest first with keyset pagination", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const u = await owner();
      const keys = Array.from({ length: 5 }, (_, i) => apiKey(u.id, { createdAt: at(i * 1000) }));
      for (const k of keys) await apiKeys.create(k);
      const first = await apiKeys.listByUser(u.id, { limit: 2, cursor: null });
      expect(first.items.map((k) => k.id)).toEqual([keys[4]!.id, keys[3]!.id]);
      expect(first.nextCursor).not.toBeNull();
      const second = await apiKeys.listByUser(u.id, { limit: 2, cursor: first.nextCursor });
      expect(second.items.map((k) => k.id)).toEqual([keys[2]!.id, keys[1]!.id]);
      const third = await apiKeys.listByUser(u.id, { limit: 2, cursor: second.nextCursor });
      expect(third.items.map((k) => k.id)).toEqual([keys[0]!.id]);
      expect(third.nextCursor).toBeNull();
    });

    it("sweeps expired keys of one user or of all users", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const a = await owner();
      const b = await owner();
      const ea = apiKey(a.id, { expiresAt: at(-1) });
      const eb = apiKey(b.id, { expiresAt: at(-1) });
      const live = apiKey(a.id, { expiresAt: at(60_000) });
      const eternal = apiKey(a.id, { expiresAt: null });
      const boundary = apiKey(b.id, { expiresAt: T0 });
      for (const k of [ea, eb, live, eternal, boundary]) await apiKeys.create(k);
      expect(await apiKeys.deleteExpired(T0, a.id)).toEqual([{ id: ea.id, userId: a.id }]);
      expect(await apiKeys.findById(eb.id)).not.toBeNull();
      const swept = await apiKeys.deleteExpired(T0, null);
      // Other tests share the store, so only this test's keys are checked: expiresAt === now counts as expired.
      expect(swept).toEqual(
        expect.arrayContaining([
          { id: eb.id, userId: b.id },
          { id: boundary.id, userId: b.id },
        ]),
      );
      expect(swept.map((k) => k.id)).not.toContain(ea.id);
      expect(await apiKeys.findById(eb.id)).toBeNull();
      expect(await apiKeys.findByHash(boundary.keyHash)).toBeNull();
      expect(await apiKeys.findById(live.id)).not.toBeNull();
      expect(await apiKeys.findById(eternal.id)).not.toBeNull();
      expect(await apiKeys.deleteExpired(T0, a.id)).toEqual([]);
    });

    it("deleteExpired and deleteExpiredRerolls with a limit handle at most that many per call (the sweep's batches)", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const u = await owner();
      // Far in the past: in a shared store only these keys are expired (or past their grace) at this "now".
      const ancient = new Date(Date.UTC(2001, 0, 1));
      const expired = Array.from({ length: 3 }, () => apiKey(u.id, { expiresAt: ancient }));
      const rerolled = Array.from({ length: 3 }, () =>
        apiKey(u.id, { previousKeyHash: uid("p"), previousKeyExpiresAt: ancient }),
      );
      for (const k of [...expired, ...rerolled]) await apiKeys.create(k);
      const first = await apiKeys.deleteExpired(ancient, null, 2);
      expect(first).toHaveLength(2);
      const second = await apiKeys.deleteExpired(ancient, null, 2);
      expect(second).toHaveLength(1);
      expect(await apiKeys.deleteExpired(ancient, null, 2)).toEqual([]);
      for (const k of [...first, ...second]) expect(k.userId).toBe(u.id);
      expect([...first, ...second].map((k) => k.id).sort()).toEqual(expired.map((k) => k.id).sort());
      for (const k of expired) expect(await apiKeys.findById(k.id)).toBeNull();
      expect(await apiKeys.deleteExpiredRerolls(ancient, 2)).toBe(2);
      expect(await apiKeys.deleteExpiredRerolls(ancient, 2)).toBe(1);
      expect(await apiKeys.deleteExpiredRerolls(ancient, 2)).toBe(0);
      for (const k of rerolled) {
        expect(await apiKeys.findByHash(k.previousKeyHash!)).toBeNull();
        expect((await apiKeys.findById(k.id))?.keyHash).toBe(k.keyHash);
      }
    });

    it("lists only the owner's keys; a page past the end is empty", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const a = await owner();
      const b = await owner();
      const mine = apiKey(a.id);
      await apiKeys.create(mine);
      await apiKeys.create(apiKey(b.id));
      const page = await apiKeys.listByUser(a.id, { limit: 10, cursor: null });
      expect(page).toEqual({ items: [mine], nextCursor: null });
      expect((await apiKeys.listByUser(uid("nobody"), { limit: 10, cursor: null })).items).toEqual([]);
    });

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

    it("findByHash finds a key by its rerolled value too; update with unlessLocked leaves a locked key alone", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const u = await owner();
      const k = apiKey(u.id, { previousKeyHash: uid("prev"), previousKeyExpiresAt: at(60_000) });
      await apiKeys.create(k);
      expect(await apiKeys.findByHash(k.previousKeyHash!)).toEqual(k);
      const locked = apiKey(u.id, { enabled: false, locked: true });
      await apiKeys.create(locked);
      expect(await apiKeys.update(locked.id, u.id, { enabled: true }, { unlessLocked: true })).toBeNull();
      expect(await apiKeys.findById(locked.id)).toEqual(locked);
      expect(await apiKeys.update(k.id, u.id, { enabled: false }, { unlessLocked: true })).toMatchObject({
        enabled: false,
      });
      expect(await apiKeys.update(locked.id, null, { enabled: true, locked: false })).toMatchObject({
        enabled: true,
        locked: false,
      });
    });

    it("findByHashWithOwner reads a key (by its current or rerolled value) with its owner; null without either", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      // An owner with every optional field set, so each of its columns is read back through the join.
      const u = user({ username: uid("name"), image: "https://example.com/a.png", metadata: { plan: "pro" } });
      await store.users.create(u, []);
      const other = await owner();
      const k = apiKey(u.id, { previousKeyHash: uid("prev"), previousKeyExpiresAt: at(60_000), remaining: 3 });
      const theirs = apiKey(other.id);
      await apiKeys.create(k);
      await apiKeys.create(theirs);
      expect(await apiKeys.findByHashWithOwner(k.keyHash)).toEqual({ key: k, user: u });
      expect(await apiKeys.findByHashWithOwner(k.previousKeyHash!)).toEqual({ key: k, user: u });
      expect(await apiKeys.findByHashWithOwner(theirs.keyHash)).toEqual({ key: theirs, user: other });
      expect(await apiKeys.findByHashWithOwner(uid("unknown"))).toBeNull();
      // The owner as it is now, and the key as it is now.
      const renamed = await store.users.update(u.id, { name: "Renamed", updatedAt: at(5) });
      expect(renamed).toMatchObject({ ok: true });
      await apiKeys.consumeUse(k.id, at(1));
      const found = await apiKeys.findByHashWithOwner(k.keyHash);
      expect(found?.user).toEqual({ ...u, name: "Renamed", updatedAt: at(5) });
      expect(found?.key).toMatchObject({ id: k.id, remaining: 2 });
      // The owner's deletion takes the key with it: neither value is found any more; the other owner's key is.
      expect(await store.users.delete(u.id)).toBe(true);
      expect(await apiKeys.findByHashWithOwner(k.keyHash)).toBeNull();
      expect(await apiKeys.findByHashWithOwner(k.previousKeyHash!)).toBeNull();
      expect(await apiKeys.findByHashWithOwner(theirs.keyHash)).toEqual({ key: theirs, user: other });
    });

    it("reroll replaces the value atomically: the old hash verifies only with a grace, a second reroll ends the first", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const u = await owner();
      const k = apiKey(u.id, { remaining: 5, refillAmount: 5, refillIntervalMs: 60_000, lastRefillAt: T0 });
      await apiKeys.create(k);
      expect(
        await apiKeys.reroll(k.id, uid("other"), { keyHash: uid("h"), start: "lk_x", graceUntil: null, at: at(1) }),
      ).toBeNull();
      expect(
        await apiKeys.reroll(uid("k"), null, { keyHash: uid("h"), start: "lk_x", graceUntil: null, at: at(1) }),
      ).toBeNull();
      const first = uid("h1");
      const r1 = await apiKeys.reroll(k.id, u.id, { keyHash: first, start: "lk_1", graceUntil: at(60_000), at: at(1) });
      expect(r1).toEqual({
        ...k,
        keyHash: first,
        start: "lk_1",
        previousKeyHash: k.keyHash,
        previousKeyExpiresAt: at(60_000),
        rerolledAt: at(1),
        updatedAt: at(1),
      });
      expect((await apiKeys.findByHash(k.keyHash))?.id).toBe(k.id);
      expect((await apiKeys.findByHash(first))?.id).toBe(k.id);
      const second = uid("h2");
      const r2 = await apiKeys.reroll(k.id, null, {
        keyHash: second,
        start: "lk_2",
        graceUntil: at(30_000),
        at: at(2),
      });
      expect(r2).toMatchObject({ keyHash: second, previousKeyHash: first, previousKeyExpiresAt: at(30_000) });
      expect(await apiKeys.findByHash(k.keyHash)).toBeNull();
      const third = uid("h3");
      const r3 = await apiKeys.reroll(k.id, u.id, { keyHash: third, start: "lk_3", graceUntil: null, at: at(3) });
      expect(r3).toMatchObject({
        keyHash: third,
        previousKeyHash: null,
        previousKeyExpiresAt: null,
        rerolledAt: at(3),
      });
      expect(await apiKeys.findByHash(first)).toBeNull();
      expect(await apiKeys.findByHash(second)).toBeNull();
      expect((await apiKeys.findByHash(third))?.remaining).toBe(5);
    });

    it("two concurrent rerolls with a grace leave exactly two values: the original stops verifying", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const u = await owner();
      const k = apiKey(u.id);
      await apiKeys.create(k);
      const hashes = [uid("ha"), uid("hb")];
      await Promise.all(
        hashes.map((h) => apiKeys.reroll(k.id, u.id, { keyHash: h, start: "lk_r", graceUntil: at(60_000), at: at(1) })),
      );
      const row = (await apiKeys.findById(k.id))!;
      expect(new Set([row.keyHash, row.previousKeyHash])).toEqual(new Set(hashes));
      expect(await apiKeys.findByHash(k.keyHash)).toBeNull();
    });

    it("deleteExpiredRerolls forgets only the rerolled hashes whose grace ended", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const u = await owner();
      const ended = apiKey(u.id, { previousKeyHash: uid("p"), previousKeyExpiresAt: T0 });
      const running = apiKey(u.id, { previousKeyHash: uid("p"), previousKeyExpiresAt: at(1) });
      for (const k of [ended, running]) await apiKeys.create(k);
      expect(await apiKeys.deleteExpiredRerolls(T0)).toBeGreaterThanOrEqual(1);
      expect(await apiKeys.findByHash(ended.previousKeyHash!)).toBeNull();
      expect(await apiKeys.findById(ended.id)).toEqual({ ...ended, previousKeyHash: null, previousKeyExpiresAt: null });
      expect(await apiKeys.findById(running.id)).toEqual(running);
      expect((await apiKeys.findByHash(ended.keyHash))?.id).toBe(ended.id);
    });

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

    it("create with maxPerUser: the owner never holds more than the cap, even under 10 parallel creates", async (context) => {
      const apiKeys = portOf(store, "apiKeys", context);
      const u = await owner();
      const results = await Promise.all(
        Array.from({ length: 10 }, () => apiKeys.create(apiKey(u.id), { maxPerUser: 3 })),
      );
      const held = (await apiKeys.listByUser(u.id, { limit: 100, cursor: null })).items.length;
      expect(results.filter(Boolean).length).toBe(held);
      expect(held).toBeLessThanOrEqual(3);
      // Settled: creates fill up to the cap exactly, and the next one is refused.
      for (let i = held; i < 3; i++) expect(await apiKeys.create(apiKey(u.id), { maxPerUser: 3 })).toBe(true);
      const extra = apiKey(u.id);
      expect(await apiKeys.create(extra, { maxPerUser: 3 })).toBe(false);
      expect(await apiKeys.findById(extra.id)).toBeNull();
      expect(await apiKeys.create(apiKey(u.id), { maxPerUser: null })).toBe(true);
      expect((await apiKeys.listByUser(u.id, { limit: 100, cursor: null })).items).toHaveLength(4);
    });
  });
}
