import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { createTestClock } from "../ports/clock.ts";
import type { CacheCarrier } from "./carrier.ts";
import { cachedStore } from "./cached-store.ts";
import { LookupCache } from "./lookup-cache.ts";
import { decodeInvalidations, DROP_EVERYTHING, encodeInvalidations } from "./invalidations.ts";
import { apiKey, manualCarrier, quiet, session, setup, T0, user } from "../../test/cache-fixture.ts";

describe("lookup cache", () => {
  it("bypasses the cache while the carrier is down, and flushes before using it again", async () => {
    const { base, store, cache, clock, manual } = await setup();
    await store.sessions.findByTokenHash("hash-s1");
    manual.down();
    expect(cache.stats()).toMatchObject({ bypassed: true, entries: 0, carrierLosses: 1 });
    // Revoked while nobody listened: never answered from memory.
    await base.sessions.delete("s1");
    expect(await store.sessions.findByTokenHash("hash-s1")).toBeNull();
    await base.sessions.create(session("s3", "u1"));
    await store.sessions.findByTokenHash("hash-s3");
    expect(cache.stats().entries).toBe(0); // nothing kept while bypassed
    clock.advance(1500);
    manual.up();
    expect(cache.stats()).toMatchObject({ bypassed: false, entries: 0, bypassedMs: 1500 });
    await store.sessions.findByTokenHash("hash-s3");
    await store.sessions.findByTokenHash("hash-s3");
    expect(cache.stats().entries).toBe(1);
  });

  it("is bypassed until the carrier first reports that it listens", async () => {
    const base = memoryStore();
    await base.users.create(user("u1"), []);
    await base.sessions.create(session("s1", "u1"));
    const manual = manualCarrier();
    const cache = new LookupCache(
      { ttlMs: 30_000, maxEntries: 10, carrier: manual.carrier },
      createTestClock(T0),
      quiet,
    );
    cache.start();
    const store = cachedStore(base, cache);
    await store.sessions.findByTokenHash("hash-s1");
    await store.sessions.findByTokenHash("hash-s1");
    expect(cache.stats()).toMatchObject({ hits: 0, entries: 0, bypassed: true });
  });

  it("publishes a transaction's invalidations once it ended (committed, or failed: the error may follow the commit), never before", async () => {
    const { store, manual } = await setup();
    await expect(
      store.transaction(async (tx) => {
        await tx.sessions.deleteByUser("u1");
        expect(manual.published).toEqual([]); // not while it runs
        throw new Error("failed");
      }),
    ).rejects.toThrow("failed");
    expect(manual.published).toEqual(["u:u1"]);
    manual.published.length = 0;
    await store.transaction(async (tx) => {
      await tx.sessions.deleteByUser("u1");
      expect(manual.published).toEqual([]); // not before the commit
    });
    expect(manual.published).toEqual(["u:u1"]);
  });

  it("splits a large transaction's invalidations into payloads PostgreSQL accepts (under 8,000 bytes): 318 keys and more", async () => {
    // A carrier that refuses, as NOTIFY does, any payload of 8,000 bytes or more, and delivers the rest to B.
    const other = manualCarrier();
    const refusing: CacheCarrier = {
      start: () => undefined,
      async publish(payload) {
        if (new TextEncoder().encode(payload).length >= 8000) throw new Error("payload string too long");
        other.deliver(payload);
      },
      async close() {},
    };
    const a = new LookupCache({ ttlMs: 30_000, maxEntries: 100, carrier: refusing }, createTestClock(T0), quiet);
    const b = new LookupCache({ ttlMs: 30_000, maxEntries: 1000, carrier: other.carrier }, createTestClock(T0), quiet);
    b.start();
    other.up();
    const ids = Array.from({ length: 400 }, (_, i) => `key_${String(i).padStart(4, "0")}_0123456789abcdefghij`);
    for (const id of ids) b.set(`k:${id}`, { id }, b.generation, { keyId: id });
    expect(b.stats().entries).toBe(400);
    await a.invalidate(ids.map((id) => ({ kind: "key" as const, id })));
    expect(b.stats()).toMatchObject({ entries: 0, invalidationsReceived: 400 });
    expect(a.stats()).toMatchObject({ carrierLosses: 0, invalidationsPublished: 400 });
    // Every payload fits; the same id twice goes once; an id too long for any payload drops everything.
    for (const payload of encodeInvalidations(ids.map((id) => ({ kind: "key", id }))))
      expect(new TextEncoder().encode(payload).length).toBeLessThan(8000);
    expect(
      encodeInvalidations([
        { kind: "user", id: "u1" },
        { kind: "user", id: "u1" },
      ]),
    ).toEqual(["u:u1"]);
    expect(encodeInvalidations([{ kind: "user", id: "x".repeat(8000) }])).toEqual([DROP_EVERYTHING]);
    const many = Array.from({ length: 20_000 }, (_, i) => ({ kind: "key" as const, id: `k${i}_0123456789` }));
    expect(encodeInvalidations(many)).toEqual([DROP_EVERYTHING]);
  });

  it("a publication that fails is a carrier loss: bypassed until a drop-everything message went out", async () => {
    const { store, cache, manual } = await setup();
    let failing = true;
    const publish = manual.carrier.publish;
    manual.carrier.publish = async (payload) => {
      if (failing) throw new Error("carrier unreachable");
      await publish(payload);
    };
    await store.sessions.findByTokenHash("hash-s1");
    await store.users.update("u1", { name: "New" });
    expect(cache.stats()).toMatchObject({ bypassed: true, entries: 0, carrierLosses: 1 });
    await store.sessions.findByTokenHash("hash-s1");
    await store.sessions.findByTokenHash("hash-s1");
    expect(cache.stats()).toMatchObject({ hits: 0, entries: 0 }); // nothing served or kept meanwhile
    failing = false;
    // Retried every second until it goes out; then the cache is on again, flushed.
    const deadline = Date.now() + 10_000;
    while (cache.stats().bypassed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(manual.published).toEqual([DROP_EVERYTHING]);
    expect(cache.stats()).toMatchObject({ bypassed: false, entries: 0 });
    await cache.close();
  });

  it("every write that ends or changes a cached lookup invalidates it", async () => {
    const { base, store, manual } = await setup();
    const now = new Date(T0);
    await store.users.update("u1", { name: "New" });
    await store.sessions.touch("s1", new Date(T0 + 1000), now);
    await store.sessions.deleteByUser("u1", "s1");
    const account = {
      id: "a1",
      userId: "u1",
      providerId: "credential",
      accountId: "u1",
      passwordHash: "x",
      createdAt: now,
      updatedAt: now,
    };
    await store.accounts.upsertPassword("u1", account as never);
    await store.accounts.deleteAllExcept("u1", "credential");
    const key = apiKey("k1", "u1", { expiresAt: new Date(T0 + 1000) });
    await base.apiKeys.create(key);
    await store.apiKeys?.update("k1", null, { enabled: false, updatedAt: now });
    await store.apiKeys?.reroll("k1", null, { keyHash: "kh2", start: "lk_abcde", graceUntil: null, at: now });
    await store.apiKeys?.deleteExpired(new Date(T0 + 2000), null);
    await store.users.delete("u1");
    expect(manual.published.flatMap(decodeInvalidations)).toEqual([
      { kind: "user", id: "u1" },
      { kind: "session", id: "s1" },
      { kind: "user", id: "u1" },
      { kind: "user", id: "u1" },
      { kind: "user", id: "u1" },
      { kind: "key", id: "k1" },
      { kind: "key", id: "k1" },
      { kind: "key", id: "k1" },
      { kind: "user", id: "u1" },
    ]);
  });
});
