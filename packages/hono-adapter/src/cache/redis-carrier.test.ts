import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { redisCacheCarrier } from "@latchkey/redis-store";
import { startTestRedis, type TestRedisServer } from "../../../../test/redis-server.ts";
import { bearer, type TestAuth } from "../../test/test-auth.ts";
import { storesForTestRun, testStoreKind } from "../../test/test-stores.ts";
import {
  cacheInstances,
  cachedOn,
  listening,
  onA,
  session,
  signIn,
  until,
} from "../../test/cache/revocation-fixture.ts";

// The lookup cache with Redis pub/sub as its carrier, over the run's store (a `redis-server` of its own, started
// before the tests): revocations delivered, and Redis down or frozen.

const { instance, generationCase } = cacheInstances();

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
