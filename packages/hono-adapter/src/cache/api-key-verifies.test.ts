import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { BASE_URL, type TestAuth } from "../../test/test-auth.ts";
import { storesForTestRun, testStoreKind } from "../../test/test-stores.ts";
import { cacheInstances, listening, onA, pausedOnce } from "../../test/cache/revocation-fixture.ts";

// API keys with the lookup cache on, over the run's store: a verify reads the key with its owner, and a change to
// either on instance A is refused by instance B once its carrier delivered it; a quota key spends every use at the
// store.

const { instance, pair } = cacheInstances();

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
