import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { createTestClock } from "../ports/clock.ts";
import type { ApiKeyRecord, SessionRecord, UserRecord } from "../ports/records.ts";
import type { FullStore, Store } from "../ports/store.ts";
import { AuthConfigError } from "../errors/errors.ts";
import type { Logger } from "../logger/logger.ts";
import type { CacheCarrier, CacheCarrierListener } from "./carrier.ts";
import { cachedStore } from "./cached-store.ts";
import { LookupCache } from "./lookup-cache.ts";
import { decodeInvalidations, DROP_EVERYTHING, encodeInvalidations } from "./invalidations.ts";
import { resolveCacheOptions } from "./options.ts";

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const T0 = Date.UTC(2026, 5, 1);

/** A carrier the test drives: it records publications and reports up/down when told. */
function manualCarrier() {
  let listener: CacheCarrierListener | null = null;
  const published: string[] = [];
  const carrier: CacheCarrier = {
    start(l) {
      listener = l;
    },
    async publish(payload) {
      published.push(payload);
    },
    async close() {},
  };
  return {
    carrier,
    published,
    up: () => listener?.up(),
    down: () => listener?.down("test"),
    deliver: (payload: string) => listener?.message(payload),
  };
}

function user(id: string): UserRecord {
  return {
    id,
    email: `${id}@example.com`,
    emailVerified: false,
    name: null,
    image: null,
    username: null,
    metadata: {},
    appMetadata: {},
    createdAt: new Date(T0),
    updatedAt: new Date(T0),
    banned: false,
    banReason: null,
    banExpires: null,
  };
}

function session(id: string, userId: string): SessionRecord {
  return {
    id,
    userId,
    tokenHash: `hash-${id}`,
    expiresAt: new Date(T0 + 86_400_000),
    createdAt: new Date(T0),
    updatedAt: new Date(T0),
    ip: null,
    userAgent: null,
    rememberMe: true,
    impersonatedBy: null,
  };
}

function apiKey(id: string, userId: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const at = new Date(T0);
  return {
    id,
    userId,
    keyHash: `kh-${id}`,
    start: "lk_12345",
    prefix: "lk_",
    name: null,
    enabled: true,
    locked: false,
    permissions: {},
    metadata: {},
    serverMetadata: {},
    remaining: null,
    refillAmount: null,
    refillIntervalMs: null,
    lastRefillAt: null,
    rateLimitMax: null,
    rateLimitWindowMs: null,
    windowStart: null,
    requestCount: 0,
    expiresAt: null,
    lastUsedAt: null,
    previousKeyHash: null,
    previousKeyExpiresAt: null,
    rerolledAt: null,
    createdAt: at,
    updatedAt: at,
    organizationId: null,
    ...over,
  };
}

async function setup(options: { ttlMs?: number; maxEntries?: number; base?: FullStore } = {}) {
  const base = options.base ?? memoryStore();
  const clock = createTestClock(T0);
  const manual = manualCarrier();
  const cache = new LookupCache(
    { ttlMs: options.ttlMs ?? 30_000, maxEntries: options.maxEntries ?? 100, carrier: manual.carrier },
    clock,
    quiet,
  );
  cache.start();
  manual.up();
  const store = cachedStore(base, cache);
  await base.users.create(user("u1"), []);
  await base.sessions.create(session("s1", "u1"));
  return { base, store, cache, clock, manual };
}

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

  it("drop everything: every entry goes, as a flush", async () => {
    const { store, cache, manual } = await setup();
    await store.sessions.findByTokenHash("hash-s1");
    expect(cache.stats().entries).toBe(1);
    manual.deliver(DROP_EVERYTHING);
    expect(cache.stats()).toMatchObject({ entries: 0, invalidationsReceived: 1 });
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

describe("cache options", () => {
  const withoutCarrier = (): Store => {
    const { cacheCarrier: _none, ...rest } = memoryStore();
    return { ...rest, kind: "d1" };
  };
  const refused = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      if (error instanceof AuthConfigError) return error;
      throw error;
    }
    throw new Error("expected an AuthConfigError");
  };

  it("is off unless asked for, with ttl 30 s and 10,000 entries by default", () => {
    expect(resolveCacheOptions(undefined, memoryStore())).toBeNull();
    expect(resolveCacheOptions({}, memoryStore())).toMatchObject({ ttlMs: 30_000, maxEntries: 10_000 });
  });

  it("refuses a store without a carrier unless ttl is at most 5 s and the delay is accepted", () => {
    expect(refused(() => resolveCacheOptions({}, withoutCarrier())).message).toMatch(/"d1" store has none/);
    expect(refused(() => resolveCacheOptions({ ttl: "5s" }, withoutCarrier())).field).toBe("cache");
    expect(refused(() => resolveCacheOptions({ ttl: "6s", acceptRevocationDelay: true }, withoutCarrier())).field).toBe(
      "cache",
    );
    expect(resolveCacheOptions({ ttl: "5s", acceptRevocationDelay: true }, withoutCarrier())).toMatchObject({
      ttlMs: 5000,
      carrier: null,
    });
  });

  it("refuses bad values, naming the option", () => {
    expect(refused(() => resolveCacheOptions({ maxEntries: 0 }, memoryStore())).field).toBe("cache.maxEntries");
    expect(refused(() => resolveCacheOptions({ ttl: "soon" as never }, memoryStore())).field).toBe("cache.ttl");
    expect(refused(() => resolveCacheOptions({ carrier: {} as never }, memoryStore())).field).toBe("cache.carrier");
    expect(refused(() => resolveCacheOptions({ acceptRevocationDelay: true }, memoryStore())).field).toBe(
      "cache.acceptRevocationDelay",
    );
  });
});
