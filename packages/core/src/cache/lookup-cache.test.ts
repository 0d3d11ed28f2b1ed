import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import type { FullStore } from "../ports/store.ts";
import { DROP_EVERYTHING } from "./invalidations.ts";
import { apiKey, session, setup, T0 } from "../../test/cache-fixture.ts";

describe("lookup cache", () => {
  it("answers a repeated session lookup from memory, and a sign-out ends it at once and tells the others", async () => {
    const { store, cache, manual } = await setup();
    expect(await store.sessions.findByTokenHash("hash-s1")).not.toBeNull();
    expect(await store.sessions.findByTokenHash("hash-s1")).not.toBeNull();
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, entries: 1 });
    await store.sessions.delete("s1");
    expect(await store.sessions.findByTokenHash("hash-s1")).toBeNull();
    expect(manual.published).toEqual(["s:s1"]);
  });

  it("drops the entry when another instance's invalidation arrives", async () => {
    const { base, store, manual } = await setup();
    await store.sessions.findByTokenHash("hash-s1");
    // Another instance deleted it (straight in the database) and published.
    await base.sessions.delete("s1");
    expect(await store.sessions.findByTokenHash("hash-s1")).not.toBeNull(); // still cached: nothing told us yet
    manual.deliver("s:s1");
    expect(await store.sessions.findByTokenHash("hash-s1")).toBeNull();
  });

  it("a user's invalidation ends the entries of every session of theirs", async () => {
    const { base, store, cache, manual } = await setup();
    await base.sessions.create(session("s2", "u1"));
    await store.sessions.findByTokenHash("hash-s1");
    await store.sessions.findByTokenHash("hash-s2");
    await store.users.findById("u1"); // never cached: flows that re-read a user before deciding see the store
    expect(cache.stats().entries).toBe(2);
    manual.deliver("u:u1");
    expect(cache.stats().entries).toBe(0);
  });

  it("generation check: a lookup read while an invalidation for it arrived is not kept", async () => {
    const base = memoryStore();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const paused: FullStore = {
      ...base,
      sessions: {
        ...base.sessions,
        async findByTokenHash(hash) {
          const found = await base.sessions.findByTokenHash(hash);
          await gate;
          return found;
        },
      },
    };
    const { store, cache, manual } = await setup({ base: paused });
    const inFlight = store.sessions.findByTokenHash("hash-s1");
    // The row was read; before the answer is kept, the session is revoked elsewhere.
    await base.sessions.delete("s1");
    manual.deliver("s:s1");
    release();
    expect(await inFlight).not.toBeNull(); // the answer of that read, as the store gave it
    expect(cache.stats().entries).toBe(0); // but not kept
    expect(await store.sessions.findByTokenHash("hash-s1")).toBeNull();
  });

  it("caches a key verify's read (the key with its owner): the key's or the owner's invalidation ends it", async () => {
    const { base, store, cache, manual } = await setup();
    await base.apiKeys.create(apiKey("k1", "u1"));
    const keys = store.apiKeys!;
    const first = await keys.findByHashWithOwner("kh-k1");
    expect(first).toMatchObject({ key: { id: "k1" }, user: { id: "u1" } });
    // A caller's copy: changing it changes nothing kept.
    first!.user.name = "Mallory";
    first!.key.enabled = false;
    expect(await keys.findByHashWithOwner("kh-k1")).toMatchObject({ key: { enabled: true }, user: { name: null } });
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, entries: 1 });
    manual.deliver("u:u1");
    expect(cache.stats().entries).toBe(0);
    await keys.findByHashWithOwner("kh-k1");
    expect(cache.stats().entries).toBe(1);
    manual.deliver("k:k1");
    expect(cache.stats().entries).toBe(0);
    // This instance's own owner update ends it too, and tells the others.
    await keys.findByHashWithOwner("kh-k1");
    await store.users.update("u1", { name: "Ada" });
    expect(cache.stats().entries).toBe(0);
    expect(manual.published).toEqual(["u:u1"]);
    expect((await keys.findByHashWithOwner("kh-k1"))?.user.name).toBe("Ada");
  });

  it("touchLastUsed stamps the cached key verify in place and publishes nothing", async () => {
    const { base, store, cache, manual } = await setup();
    await base.apiKeys.create(apiKey("k1", "u1"));
    const keys = store.apiKeys!;
    await keys.findByHashWithOwner("kh-k1");
    const used = new Date(T0 + 5000);
    await keys.touchLastUsed("k1", used, 60_000);
    const hits = cache.stats().hits;
    expect(await keys.findByHashWithOwner("kh-k1")).toMatchObject({ key: { lastUsedAt: used }, user: { id: "u1" } });
    expect(cache.stats().hits).toBe(hits + 1);
    // An older stamp never moves it back.
    await keys.touchLastUsed("k1", new Date(T0), 0);
    expect((await keys.findByHashWithOwner("kh-k1"))?.key.lastUsedAt).toEqual(used);
    expect(manual.published).toEqual([]);
  });

  it("generation check: a key verify read while its owner's invalidation arrived is not kept", async () => {
    const base = memoryStore();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const paused: FullStore = {
      ...base,
      apiKeys: {
        ...base.apiKeys,
        async findByHashWithOwner(hash) {
          const found = await base.apiKeys.findByHashWithOwner(hash);
          await gate;
          return found;
        },
      },
    };
    const { store, cache, manual } = await setup({ base: paused });
    await base.apiKeys.create(apiKey("k1", "u1"));
    const inFlight = store.apiKeys!.findByHashWithOwner("kh-k1");
    // The pair was read; before the answer is kept, the owner is deleted elsewhere.
    await base.users.delete("u1");
    manual.deliver("u:u1");
    release();
    expect(await inFlight).not.toBeNull(); // the answer of that read, as the store gave it
    expect(cache.stats().entries).toBe(0); // but not kept
    expect(await store.apiKeys!.findByHashWithOwner("kh-k1")).toBeNull();
  });

  it("drop everything: every entry goes, as a flush", async () => {
    const { store, cache, manual } = await setup();
    await store.sessions.findByTokenHash("hash-s1");
    expect(cache.stats().entries).toBe(1);
    manual.deliver(DROP_EVERYTHING);
    expect(cache.stats()).toMatchObject({ entries: 0, invalidationsReceived: 1 });
  });
});
