import { Hono } from "hono";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, hashSecret, type CacheCarrier, type CacheCarrierListener, type FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { redisCacheCarrier } from "@latchkey/redis-store";
import { apiKeyRecord, testPostgresUrl } from "@latchkey/test-support";
import { startTestRedis, type TestRedisServer } from "../../../../test/redis-server.ts";
import { BASE_URL, bearer, createTestAuth, type TestAuth } from "../../test/test-auth.ts";
import { storesForTestRun, testStoreKind } from "../../test/test-stores.ts";
import { send, verify } from "../routes/email-verification/test-fixtures.ts";

// The lookup cache over HTTP on the run's store (memory, libSQL, PostgreSQL): every revocation is refused at
// once on the instance that made it, and on another instance over the same database as soon as its carrier
// delivered the invalidation (the test waits for that delivery, counted in `stats()`, never for a time).

const CEILING_MS = 15_000;
const opened: TestAuth[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.auth.cache?.close()));
});

/** Polls `done` until it holds; fails after a generous ceiling (a carrier that never delivers). */
async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function instance(store: FullStore, carrier?: CacheCarrier): TestAuth {
  const t = createTestAuth({ store, plugins: [apiKeys()], cache: carrier ? { carrier } : {} });
  opened.push(t);
  return t as TestAuth;
}

/** Two auth instances over one database (two connections on libSQL and PostgreSQL; one shared memory store). */
async function pair(): Promise<{ a: TestAuth; b: TestAuth }> {
  const shared = memoryStore();
  const [first, second] = storesForTestRun(2) ?? [shared, shared];
  const a = instance(first as FullStore);
  const b = instance(second as FullStore);
  await listening(a);
  await listening(b);
  return { a, b };
}

const listening = (t: TestAuth) => until("the carrier listens", () => t.auth.cache?.stats().bypassed === false);
const received = (t: TestAuth) => t.auth.cache?.stats().invalidationsReceived ?? 0;

async function session(t: TestAuth, token: string): Promise<{ user: { appMetadata: unknown } } | null> {
  return (await t.request("GET", "/get-session", { headers: bearer(token) })).json();
}

/** Reads the session twice on `t` and checks the second read was answered from its cache. */
async function cachedOn(t: TestAuth, token: string): Promise<void> {
  expect(await session(t, token)).not.toBeNull();
  const hits = t.auth.cache?.stats().hits ?? 0;
  expect(await session(t, token)).not.toBeNull();
  expect(t.auth.cache?.stats().hits).toBeGreaterThan(hits);
}

const published = (t: TestAuth) => t.auth.cache?.stats().invalidationsPublished ?? 0;

/**
 * Runs `change` on A, then waits until B heard every invalidation the change published (B publishes nothing in
 * these tests, and every earlier change was waited for the same way, so nothing late passes for this one's).
 */
async function onA(a: TestAuth, b: TestAuth, change: () => Promise<unknown>): Promise<void> {
  const heard = received(b);
  const before = published(a);
  await change();
  const count = published(a) - before;
  expect(count).toBeGreaterThan(0);
  await until("B hears the invalidation", () => received(b) >= heard + count);
}

async function signIn(t: TestAuth, email: string): Promise<string> {
  const res = await t.request("POST", "/sign-in/email", {
    body: { email, password: "correct horse battery" },
    ip: "198.51.100.77",
  });
  return ((await res.json()) as { credentials: { token: string } }).credentials.token;
}

/**
 * `port` with `method` held once, after the store answered, on its first call while `armed()`: `read` resolves when
 * that call is held, and `release()` lets it answer. What the generation-check cases pause a read with.
 */
function pausedOnce<P extends object>(port: P, method: keyof P & string, armed: () => boolean) {
  let readDone: () => void = () => undefined;
  const read = new Promise<void>((resolve) => (readDone = resolve));
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const wrapped = new Proxy(port, {
    get: (target, property, receiver) =>
      property === method
        ? async (...args: unknown[]) => {
            const found: unknown = await (target[method] as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            if (!held && armed()) {
              held = true;
              readDone();
              await gate;
            }
            return found;
          }
        : Reflect.get(target, property, receiver),
  });
  return { port: wrapped, read, release: () => release() };
}

/**
 * The generation check on a real carrier: B's first read of a session is paused after the store answered; A signs
 * the session out and B hears it; then B's read completes. That answer was read before the revocation, so it is
 * served once, but it must not be kept: B's next request is refused.
 */
async function generationCase(carrierOf?: () => CacheCarrier): Promise<void> {
  const shared = memoryStore();
  const [first, second] = (storesForTestRun(2) ?? [shared, shared]) as FullStore[];
  const { port: sessions, read, release } = pausedOnce((second as FullStore).sessions, "findByTokenHash", () => true);
  const a = instance(first as FullStore, carrierOf?.());
  const b = instance({ ...(second as FullStore), sessions }, carrierOf?.());
  await listening(a);
  await listening(b);
  const { token } = await a.signUp("ada@example.com");
  const inFlight = session(b, token);
  await read;
  await onA(a, b, () => a.request("POST", "/sign-out", { headers: bearer(token) }));
  release();
  expect(await inFlight).not.toBeNull(); // read before the revocation: answered once
  expect(b.auth.cache?.stats().entries).toBe(0); // but not kept
  expect(await session(b, token)).toBeNull();
}

describe(`lookup cache on ${testStoreKind()}`, () => {
  it("answers a signed-out session as signed out at once on the same instance", async () => {
    const t = instance(storesForTestRun(1)?.[0] ?? memoryStore());
    await listening(t);
    const { token } = await t.signUp("ada@example.com");
    await cachedOn(t, token);
    expect((await t.request("POST", "/sign-out", { headers: bearer(token) })).status).toBe(200);
    expect(await session(t, token)).toBeNull();
  });

  it("generation check: a read that spanned the revocation's arrival is answered once and not kept", async () => {
    await generationCase();
  });

  it("ttl bounds an entry: a change no invalidation announced is seen once ttl (30 s) passed", async () => {
    const t = instance(storesForTestRun(1)?.[0] ?? memoryStore());
    await listening(t);
    const { token } = await t.signUp("ada@example.com");
    await cachedOn(t, token);
    const found = await t.store.sessions.findByTokenHash(hashSecret(token));
    // Straight in the database, around the cache (as SQL by hand would): nothing is published.
    await t.store.sessions.delete(found?.session.id as string);
    t.clock.advance(29_999);
    expect(await session(t, token)).not.toBeNull();
    t.clock.advance(1);
    expect(await session(t, token)).toBeNull();
  });

  it("a sign-out on A is refused by B", async () => {
    const { a, b } = await pair();
    const { token } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    await onA(a, b, () => a.request("POST", "/sign-out", { headers: bearer(token) }));
    expect(await session(b, token)).toBeNull();
  });

  it("revoking every session, a password change and a deletion on A reach B", async () => {
    const { a, b } = await pair();
    const { token, userId } = await a.signUp("ada@example.com");
    const other = await signIn(a, "ada@example.com");
    await cachedOn(b, other);
    await onA(a, b, () =>
      a.request("POST", "/change-password", {
        headers: bearer(token),
        body: { currentPassword: "correct horse battery", newPassword: "a new password", revokeOtherSessions: true },
      }),
    );
    expect(await session(b, other)).toBeNull();

    const third = await signIn(a, "ada@example.com").catch(() => null);
    expect(third).toBeNull(); // the old password no longer signs in
    const fresh = (
      (await (
        await a.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "a new password" } })
      ).json()) as { credentials: { token: string } }
    ).credentials.token;
    await cachedOn(b, fresh);
    await onA(a, b, () => a.auth.api.revokeSessions({ userId }));
    expect(await session(b, fresh)).toBeNull();
    expect(await session(b, token)).toBeNull();

    const last = (
      (await (
        await a.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "a new password" } })
      ).json()) as { credentials: { token: string } }
    ).credentials.token;
    await cachedOn(b, last);
    await onA(a, b, () => a.auth.api.deleteUser(userId));
    expect(await session(b, last)).toBeNull();
  });

  it("a mailbox proof that revokes 320 API keys reaches B (one NOTIFY could not carry it: 8,000 bytes)", async () => {
    const { a, b } = await pair();
    // The pre-registered attacker's session and 320 keys on the victim's address.
    const { token, userId } = await a.signUp("victim@example.com", "attacker chose this one");
    const now = new Date(a.clock.now());
    for (let i = 0; i < 320; i++)
      await a.store.apiKeys.create(
        apiKeyRecord({
          id: `key-${String(i).padStart(3, "0")}-${userId}`,
          userId,
          keyHash: hashSecret(`attacker-key-${i}-${userId}`),
          createdAt: now,
          updatedAt: now,
        }),
      );
    await cachedOn(b, token);
    await send(a, "victim@example.com");
    await onA(a, b, async () => {
      expect((await verify(a, "victim@example.com", a.auth.getOtp("victim@example.com") as string)).status).toBe(200);
    });
    expect(a.auth.cache?.stats()).toMatchObject({ bypassed: false, carrierLosses: 0 });
    expect(await session(b, token)).toBeNull();
  });

  it("a user update on A shows on B's next read", async () => {
    const { a, b } = await pair();
    const { token, userId } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    await onA(a, b, () => a.auth.api.updateUser(userId, { appMetadata: { role: "admin" } }));
    expect((await session(b, token))?.user.appMetadata).toEqual({ role: "admin" });
  });

  it("an API key disabled, rerolled or deleted on A is refused by B", async () => {
    const { a, b } = await pair();
    const { userId } = await a.signUp("ada@example.com");
    const verify = async (key: string) =>
      (await (await b.request("POST", "/api-key/verify", { body: { key } })).json()) as {
        valid: boolean;
        error?: { code: string };
      };
    const cachedKey = async (key: string) => {
      expect((await verify(key)).valid).toBe(true);
      const hits = b.auth.cache?.stats().hits ?? 0;
      expect((await verify(key)).valid).toBe(true);
      expect(b.auth.cache?.stats().hits).toBeGreaterThan(hits);
    };
    const api = a.auth.api as unknown as {
      createApiKey(i: { userId: string }): Promise<{ key: string; apiKey: { id: string } }>;
      updateApiKey(i: { keyId: string; enabled: boolean }): Promise<unknown>;
      rerollApiKey(i: { keyId: string; gracePeriod: null }): Promise<{ key: string }>;
      deleteApiKey(i: { keyId: string }): Promise<unknown>;
    };
    const first = await api.createApiKey({ userId });
    await cachedKey(first.key);
    await onA(a, b, () => api.updateApiKey({ keyId: first.apiKey.id, enabled: false }));
    expect(await verify(first.key)).toMatchObject({ valid: false, error: { code: "KEY_DISABLED" } });

    const second = await api.createApiKey({ userId });
    await cachedKey(second.key);
    let rerolled = { key: "" };
    await onA(a, b, async () => {
      rerolled = await api.rerollApiKey({ keyId: second.apiKey.id, gracePeriod: null });
    });
    expect((await verify(second.key)).valid).toBe(false);
    await cachedKey(rerolled.key);
    await onA(a, b, () => api.deleteApiKey({ keyId: second.apiKey.id }));
    expect((await verify(rerolled.key)).valid).toBe(false);
  });
});

/** A host route behind `requireApiKey` on `t`: what a caller of it is told, and the owner it was given. */
function keyRoute(t: TestAuth): (key: string) => Promise<{ status: number; user?: { name: string } }> {
  const app = new Hono();
  app.use("*", t.auth.middleware);
  app.get("/data", t.auth.requireApiKey(), (c) => c.json({ user: c.var.user }));
  return async (key) => {
    const res = await app.request(`${BASE_URL}/data`, { headers: { "x-api-key": key } });
    return { status: res.status, ...((await res.json()) as { user?: { name: string } }) };
  };
}

type KeyApi = {
  createApiKey(i: { userId: string; remaining?: number }): Promise<{ key: string; apiKey: { id: string } }>;
};

/** Calls `route` twice with `key` and checks the second answer came from the cache. */
async function cachedKeyOn(t: TestAuth, route: ReturnType<typeof keyRoute>, key: string): Promise<void> {
  expect((await route(key)).status).toBe(200);
  const hits = t.auth.cache?.stats().hits ?? 0;
  expect((await route(key)).status).toBe(200);
  expect(t.auth.cache?.stats().hits).toBeGreaterThan(hits);
}

describe(`API-key verifies (the key with its owner) with the cache on (${testStoreKind()})`, () => {
  it("a user update on A shows in B's next verify; a deletion on A is refused by B", async () => {
    const { a, b } = await pair();
    const { userId } = await a.signUp("ada@example.com", "correct horse battery", { name: "Ada" });
    const onB = keyRoute(b);
    const unlimited = await (a.auth.api as unknown as KeyApi).createApiKey({ userId });
    const metered = await (a.auth.api as unknown as KeyApi).createApiKey({ userId, remaining: 100 });
    for (const { key } of [unlimited, metered]) await cachedKeyOn(b, onB, key);
    await onA(a, b, () => a.auth.api.updateUser(userId, { name: "Ada Lovelace" }));
    for (const { key } of [unlimited, metered])
      expect(await onB(key)).toMatchObject({ user: { name: "Ada Lovelace" } });
    for (const { key } of [unlimited, metered]) await cachedKeyOn(b, onB, key);
    await onA(a, b, () => a.auth.api.deleteUser(userId));
    for (const { key } of [unlimited, metered]) expect(await onB(key)).toMatchObject({ status: 401 });
    expect((await b.request("POST", "/api-key/verify", { body: { key: unlimited.key } })).status).toBe(200);
    expect(await (await b.request("POST", "/api-key/verify", { body: { key: unlimited.key } })).json()).toMatchObject({
      valid: false,
      error: { code: "INVALID_API_KEY" },
    });
  });

  it("generation check: a key read that spanned its owner's deletion is answered once and not kept", async () => {
    const shared = memoryStore();
    const [first, second] = (storesForTestRun(2) ?? [shared, shared]) as FullStore[];
    let pausing = false;
    const {
      port: keys,
      read,
      release,
    } = pausedOnce((second as FullStore).apiKeys, "findByHashWithOwner", () => pausing);
    const a = instance(first as FullStore);
    const b = instance({ ...(second as FullStore), apiKeys: keys });
    await listening(a);
    await listening(b);
    const { userId } = await a.signUp("ada@example.com");
    const { key } = await (a.auth.api as unknown as KeyApi).createApiKey({ userId });
    const onB = keyRoute(b);
    pausing = true;
    const inFlight = onB(key);
    await read;
    await onA(a, b, () => a.auth.api.deleteUser(userId));
    release();
    expect((await inFlight).status).toBe(200); // read before the deletion: answered once
    expect(b.auth.cache?.stats().entries).toBe(0); // but not kept
    expect((await onB(key)).status).toBe(401);
  });
});

describe(`what the cache hands out is the caller's own (${testStoreKind()})`, () => {
  it("a handler that edits appMetadata or a key's permissions in place changes nothing later requests see", async () => {
    const t = instance(storesForTestRun(1)?.[0] ?? memoryStore());
    await listening(t);
    const { token, userId } = await t.signUp("ada@example.com");
    await t.auth.api.updateUser(userId, { appMetadata: { role: "reader", tags: ["a"] } });
    const { key } = await (
      t.auth.api as unknown as {
        createApiKey(i: { userId: string; permissions: Record<string, string[]> }): Promise<{ key: string }>;
      }
    ).createApiKey({ userId, permissions: { files: ["read"] } });
    const app = new Hono();
    app.use("*", t.auth.middleware);
    // A careless handler: it "upgrades" what it was given, in place, on every request.
    app.get("/me", t.auth.requireUser, (c) => {
      const meta = c.var.user.appMetadata as { role: string; tags: string[] };
      const seen = { role: meta.role, tags: [...meta.tags] };
      meta.role = "admin";
      meta.tags.push("admin");
      return c.json(seen);
    });
    app.get("/files", t.auth.requireApiKey({ permissions: { files: ["write"] } }), (c) => c.json({ ok: true }));
    app.get("/key", t.auth.requireApiKey(), (c) => {
      const permissions = c.var.apiKey.permissions as Record<string, string[]>;
      permissions.files?.push("write");
      return c.json({ ok: true });
    });
    for (let i = 0; i < 3; i++) {
      const res = await app.request(`${BASE_URL}/me`, { headers: bearer(token) });
      expect(await res.json()).toEqual({ role: "reader", tags: ["a"] });
      const cookieRes = await t.request("GET", "/get-session", { headers: bearer(token) });
      expect(((await cookieRes.json()) as { user: { appMetadata: unknown } }).user.appMetadata).toEqual({
        role: "reader",
        tags: ["a"],
      });
    }
    for (let i = 0; i < 3; i++) {
      expect((await app.request(`${BASE_URL}/key`, { headers: { "x-api-key": key } })).status).toBe(200);
      // The permission was never granted: a later check must not see the handler's edit.
      expect((await app.request(`${BASE_URL}/files`, { headers: { "x-api-key": key } })).status).toBe(403);
    }
    expect(t.auth.cache?.stats().hits).toBeGreaterThan(4); // the requests above were answered from the cache
  });
});

describe(`metered API keys with the cache on (${testStoreKind()})`, () => {
  it("a quota key spends every use at the store: 5 uses across two caching instances, the reads cached", async () => {
    const { a, b } = await pair();
    const { userId } = await a.signUp("ada@example.com");
    const api = a.auth.api as unknown as {
      createApiKey(i: { userId: string; remaining: number }): Promise<{ key: string; apiKey: { id: string } }>;
    };
    const { key, apiKey } = await api.createApiKey({ userId, remaining: 5 });
    const verify = async (t: TestAuth) =>
      ((await (await t.request("POST", "/api-key/verify", { body: { key } })).json()) as { valid: boolean }).valid;
    // One use on each instance first: from then on both read the key from their caches.
    expect([await verify(a), await verify(b)]).toEqual([true, true]);
    const hits = (a.auth.cache?.stats().hits ?? 0) + (b.auth.cache?.stats().hits ?? 0);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => verify(i % 2 === 0 ? a : b)));
    expect(answers.filter(Boolean)).toHaveLength(3);
    expect((await a.store.apiKeys.findById(apiKey.id))?.remaining).toBe(0);
    expect((a.auth.cache?.stats().hits ?? 0) + (b.auth.cache?.stats().hits ?? 0)).toBeGreaterThanOrEqual(hits + 10);
  });
});

/** The store's carrier behind a switch: `cut()` loses the connection (down, deliveries dropped), `restore()` ends it. */
function switchable(inner: CacheCarrier) {
  let listener: CacheCarrierListener | null = null;
  let cut = false;
  const carrier: CacheCarrier = {
    start(l) {
      listener = l;
      inner.start({
        message: (payload) => {
          if (!cut) l.message(payload);
        },
        up: () => {
          if (!cut) l.up();
        },
        down: (reason) => l.down(reason),
      });
    },
    publish: (payload) => inner.publish(payload),
    close: () => inner.close(),
  };
  return {
    carrier,
    cut() {
      cut = true;
      listener?.down("cut by the test");
    },
    restore() {
      cut = false;
      listener?.up();
    },
  };
}

describe(`carrier loss on ${testStoreKind()}`, () => {
  it("bypasses the cache while the carrier is lost and flushes it before using it again", async () => {
    const shared = memoryStore();
    const [first, second] = storesForTestRun(2) ?? [shared, shared];
    const a = instance(first as FullStore);
    const line = switchable((second as FullStore).cacheCarrier?.() as CacheCarrier);
    const b = instance(second as FullStore, line.carrier);
    await listening(a);
    await listening(b);
    const { token } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    line.cut();
    expect(b.auth.cache?.stats()).toMatchObject({ bypassed: true, entries: 0 });
    // Revoked while B hears nothing: B reads the store, never its memory.
    await a.request("POST", "/sign-out", { headers: bearer(token) });
    expect(await session(b, token)).toBeNull();
    const other = await signIn(a, "ada@example.com");
    expect(await session(b, other)).not.toBeNull();
    expect(b.auth.cache?.stats().entries).toBe(0);
    line.restore();
    expect(b.auth.cache?.stats()).toMatchObject({ bypassed: false, entries: 0 });
    await cachedOn(b, other);
  });

  it("PostgreSQL: a LISTEN connection killed by the server is noticed, bypassed, and listened again", async (context) => {
    if (testStoreKind() !== "postgres") context.skip("PostgreSQL's LISTEN connection: runs in the postgres project");
    const [first, second] = storesForTestRun(2) as FullStore[];
    const a = instance(first as FullStore);
    const b = instance(second as FullStore);
    await listening(a);
    await listening(b);
    const { token } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    // Only this file's instances listen (the cache is off everywhere else), so every such backend is one of ours.
    const admin = postgres(testPostgresUrl(), { max: 1, onnotice: () => undefined });
    try {
      const losses = b.auth.cache?.stats().carrierLosses ?? 0;
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'latchkey-cache'`;
      await until("B notices the lost LISTEN connection", () => (b.auth.cache?.stats().carrierLosses ?? 0) > losses);
      // Signed out while B may not be listening: B must not answer from memory.
      await a.request("POST", "/sign-out", { headers: bearer(token) });
      expect(await session(b, token)).toBeNull();
      await listening(b);
      expect(b.auth.cache?.stats().entries).toBe(0);
      const other = await signIn(a, "ada@example.com");
      await cachedOn(b, other);
      await onA(a, b, () => a.request("POST", "/sign-out", { headers: bearer(other) }));
      expect(await session(b, other)).toBeNull();
    } finally {
      await admin.end({ timeout: 5 });
    }
  });
});

describe(`Redis carrier on ${testStoreKind()}`, () => {
  let redis: TestRedisServer;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  async function redisPair(): Promise<{ a: TestAuth; b: TestAuth }> {
    const shared = memoryStore();
    const [first, second] = storesForTestRun(2) ?? [shared, shared];
    const carrier = () => redisCacheCarrier({ url: redis.url, heartbeat: 0.2, commandTimeout: 0.5 });
    const a = instance(first as FullStore, carrier());
    const b = instance(second as FullStore, carrier());
    await listening(a);
    await listening(b);
    return { a, b };
  }

  it("a sign-out and a disabled API key on A are refused by B once Redis delivered them", async () => {
    const { a, b } = await redisPair();
    const { token, userId } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    await onA(a, b, () => a.request("POST", "/sign-out", { headers: bearer(token) }));
    expect(await session(b, token)).toBeNull();

    const api = a.auth.api as unknown as {
      createApiKey(i: { userId: string }): Promise<{ key: string; apiKey: { id: string } }>;
      updateApiKey(i: { keyId: string; enabled: boolean }): Promise<unknown>;
    };
    const { key, apiKey } = await api.createApiKey({ userId });
    const verify = async () =>
      ((await (await b.request("POST", "/api-key/verify", { body: { key } })).json()) as { valid: boolean }).valid;
    expect(await verify()).toBe(true);
    const hits = b.auth.cache?.stats().hits ?? 0;
    expect(await verify()).toBe(true);
    expect(b.auth.cache?.stats().hits).toBeGreaterThan(hits);
    await onA(a, b, () => api.updateApiKey({ keyId: apiKey.id, enabled: false }));
    expect(await verify()).toBe(false);
  });

  it("generation check over Redis: a read that spanned the revocation's arrival is not kept", async () => {
    await generationCase(() => redisCacheCarrier({ url: redis.url, heartbeat: 0.2 }));
  });

  it("Redis down: B bypasses its cache, serves nothing revoked meanwhile, and flushes when Redis is back", async () => {
    const { a, b } = await redisPair();
    const { token } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    await redis.halt();
    await until("B notices Redis is gone", () => b.auth.cache?.stats().bypassed === true);
    expect(b.auth.cache?.stats().entries).toBe(0);
    // A cannot publish this one (Redis is down): B must read the store.
    await a.request("POST", "/sign-out", { headers: bearer(token) });
    expect(await session(b, token)).toBeNull();
    await redis.resume();
    await listening(b);
    expect(b.auth.cache?.stats().entries).toBe(0);
    // A's publication failed while Redis was down: A bypassed its cache too, until a drop-everything went out.
    expect(a.auth.cache?.stats().carrierLosses).toBeGreaterThan(0);
    await listening(a);
    const other = await signIn(a, "ada@example.com");
    await cachedOn(b, other);
    await onA(a, b, () => a.request("POST", "/sign-out", { headers: bearer(other) }));
    expect(await session(b, other)).toBeNull();
  });

  it("Redis frozen: a sign-out is answered without waiting for Redis, and both instances bypass their caches", async () => {
    const { a, b } = await redisPair();
    const { token } = await a.signUp("ada@example.com");
    await cachedOn(b, token);
    redis.freeze();
    try {
      let status = 0;
      const signOut = a.request("POST", "/sign-out", { headers: bearer(token) }).then((res) => {
        status = res.status;
      });
      await until("the sign-out is answered while Redis is frozen", () => status !== 0);
      await signOut;
      expect(status).toBe(200);
      // Its publication got no answer: A bypasses its cache; B's probes do not come back either.
      expect(a.auth.cache?.stats().bypassed).toBe(true);
      await until("B notices the frozen Redis", () => b.auth.cache?.stats().bypassed === true);
      expect(await session(b, token)).toBeNull();
    } finally {
      redis.thaw();
    }
    await listening(a);
    await listening(b);
    const other = await signIn(a, "ada@example.com");
    await cachedOn(b, other);
    await onA(a, b, () => a.request("POST", "/sign-out", { headers: bearer(other) }));
    expect(await session(b, other)).toBeNull();
  });
});
