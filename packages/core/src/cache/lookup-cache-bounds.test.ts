import { describe, expect, it } from "vitest";
import { session, setup } from "../../test/cache-fixture.ts";

describe("lookup cache", () => {
  it("no entry outlives ttl", async () => {
    const { base, store, clock } = await setup({ ttlMs: 30_000 });
    await store.sessions.findByTokenHash("hash-s1");
    await base.sessions.delete("s1"); // a change no invalidation announced
    clock.advance(29_999);
    expect(await store.sessions.findByTokenHash("hash-s1")).not.toBeNull();
    clock.advance(1);
    expect(await store.sessions.findByTokenHash("hash-s1")).toBeNull();
  });

  it("keeps at most maxEntries, evicting the least recently used", async () => {
    const { base, store, cache } = await setup({ maxEntries: 2 });
    await base.sessions.create(session("s2", "u1"));
    await base.sessions.create(session("s3", "u1"));
    await store.sessions.findByTokenHash("hash-s1");
    await store.sessions.findByTokenHash("hash-s2");
    await store.sessions.findByTokenHash("hash-s1"); // s1 used last
    await store.sessions.findByTokenHash("hash-s3"); // evicts s2
    expect(cache.stats().entries).toBe(2);
    const before = cache.stats().hits;
    await store.sessions.findByTokenHash("hash-s1");
    expect(cache.stats().hits).toBe(before + 1);
    await store.sessions.findByTokenHash("hash-s2");
    expect(cache.stats().hits).toBe(before + 1);
  });

  it("maxEntries stays a hard bound whatever the hits; a hit entry placed longer than half the bound ago moves to the recent end", async () => {
    const { base, store, cache } = await setup({ maxEntries: 8 });
    for (let i = 2; i <= 40; i++) await base.sessions.create(session(`s${i}`, "u1"));
    // A mixed run of new lookups and hits, in an order that never repeats a pattern: the bound holds after each.
    for (let step = 0; step < 400; step++) {
      const n = 1 + ((step * 7 + (step >> 3)) % 40);
      await store.sessions.findByTokenHash(`hash-s${n}`);
      expect(cache.stats().entries).toBeLessThanOrEqual(8);
    }
    cache.flush();
    // s1 placed first, then 4 more (half the bound): its hit moves it, so the 7 placements after it evict the
    // others first and it is still held (a hit without the move would have left it first in line).
    for (let i = 1; i <= 5; i++) await store.sessions.findByTokenHash(`hash-s${i}`);
    await store.sessions.findByTokenHash("hash-s1");
    for (let i = 6; i <= 12; i++) await store.sessions.findByTokenHash(`hash-s${i}`);
    expect(cache.stats().entries).toBe(8);
    const hits = cache.stats().hits;
    await store.sessions.findByTokenHash("hash-s1");
    expect(cache.stats().hits).toBe(hits + 1);
    await store.sessions.findByTokenHash("hash-s2"); // evicted
    expect(cache.stats().hits).toBe(hits + 1);
  });
});
