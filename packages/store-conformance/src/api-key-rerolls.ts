import { beforeAll, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { apiKey, at, T0, uid, user } from "./fixtures.ts";
import { createOwner } from "./api-key-fixture.ts";
import { portOf } from "./plugin-ports.ts";

/** `api keys` cases: lookups by hash (with the owner), rerolls and their grace, the sweep of ended graces. */
export function registerApiKeyRerollCases(getStore: () => Store): void {
  let store: Store;
  beforeAll(() => {
    store = getStore();
  });
  const owner = () => createOwner(store);

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
}
