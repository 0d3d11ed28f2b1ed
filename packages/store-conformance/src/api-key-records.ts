import { beforeAll, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { apiKey, at, T0, uid } from "./fixtures.ts";
import { createOwner } from "./api-key-fixture.ts";
import { portOf } from "./plugin-ports.ts";

/** `api keys` cases: create, find, update and delete by owner; listing by owner; the sweeps of expired keys. */
export function registerApiKeyRecordCases(getStore: () => Store): void {
  let store: Store;
  beforeAll(() => {
    store = getStore();
  });
  const owner = () => createOwner(store);

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
}

/** `api keys` cases: the cap on how many keys an owner holds (`maxPerUser`), under parallel creates. */
export function registerApiKeyCapCases(getStore: () => Store): void {
  let store: Store;
  beforeAll(() => {
    store = getStore();
  });
  const owner = () => createOwner(store);

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
}
