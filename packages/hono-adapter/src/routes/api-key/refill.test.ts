import { describe, expect, it } from "vitest";
import { apiKeys, type CreateApiKeyInput, type FullStore } from "@latchkey/core";
import { migrateDatabase } from "@latchkey/drizzle-store";
import { drizzleStore as postgresStore } from "@latchkey/drizzle-store/postgres";
import { drizzleStore as sqliteStore } from "@latchkey/drizzle-store/sqlite";
import { memoryStore } from "@latchkey/memory-store";
import { createTestPostgresDatabase, createTestSqliteFile } from "@latchkey/test-support";
import { Hono } from "hono";
import { BASE_URL, createTestAuth, type TestAuth } from "../../../test/test-auth.ts";
import { testStoreKind } from "../../../test/test-stores.ts";
import { createKey, setup, signedIn } from "../../../test/routes/api-key/fixtures.ts";

const HOUR = 3_600_000;
const verify = async (t: TestAuth, key: string) =>
  (await t.request("POST", "/api-key/verify", { body: { key } })).json();

describe("API key refills", () => {
  it("a used-up key answers tryAgainIn until its interval passes, then refills in the verify that spends", async () => {
    const { t } = setup();
    const { userId } = await signedIn(t);
    const created = new Date(t.clock.now()).toISOString();
    const { key, apiKey } = await t.auth.api.createApiKey({
      userId,
      remaining: 2,
      refillAmount: 2,
      refillInterval: "1h",
    });
    expect(apiKey).toMatchObject({ remaining: 2, refillAmount: 2, refillInterval: HOUR, lastRefillAt: created });
    expect(await verify(t, key)).toMatchObject({ valid: true, apiKey: { remaining: 1 } });
    expect(await verify(t, key)).toMatchObject({ valid: true, apiKey: { remaining: 0 } });
    t.clock.advance(HOUR - 1000);
    expect(await verify(t, key)).toMatchObject({ valid: false, error: { code: "USAGE_EXCEEDED", tryAgainIn: 1000 } });
    // requireApiKey says when to come back.
    const host = new Hono();
    host.use("*", t.auth.middleware);
    host.get("/probe", t.auth.requireApiKey(), (c) => c.json({ ok: true }));
    const probe = await host.request(`${BASE_URL}/probe`, { headers: { "x-api-key": key } });
    expect(probe.status).toBe(429);
    expect(probe.headers.get("retry-after")).toBe("1");
    t.clock.advance(1000);
    const refilled = new Date(t.clock.now()).toISOString();
    expect(await verify(t, key)).toMatchObject({ valid: true, apiKey: { remaining: 1, lastRefillAt: refilled } });
    expect(await t.store.apiKeys.findById(apiKey.id)).toMatchObject({ remaining: 1, lastRefillAt: new Date(refilled) });

    // A quota without a refill: tryAgainIn is null.
    const plain = await t.auth.api.createApiKey({ userId, remaining: 0 });
    expect(await verify(t, plain.key)).toMatchObject({
      valid: false,
      error: { code: "USAGE_EXCEEDED", tryAgainIn: null },
    });
  });

  it("refill fields are server-only over HTTP and validated in auth.api; nothing is written on a refusal", async () => {
    const { t } = setup();
    const { headers, userId } = await signedIn(t);
    for (const body of [{ refillAmount: 10 }, { refillInterval: "1d" }]) {
      const res = await t.request("POST", "/api-key/create", { body, headers });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "SERVER_ONLY_PROPERTY" });
    }
    const { apiKey } = await createKey(t, headers);
    const update = await t.request("POST", "/api-key/update", {
      body: { keyId: apiKey.id, refillAmount: 10, refillInterval: "1d" },
      headers,
    });
    expect(update.status).toBe(400);
    for (const input of [
      { refillAmount: 10 },
      { refillInterval: "1d" },
      { refillAmount: 10, refillInterval: 0.5 },
      { refillAmount: 10, refillInterval: "soon" },
      { refillAmount: 0, refillInterval: "1d" },
      { refillAmount: 10, refillInterval: "1d", remaining: null },
    ]) {
      // Untyped on purpose: trusted JavaScript callers can pass anything, and each must be refused.
      const bad = { userId, ...input } as unknown as CreateApiKeyInput;
      await expect(t.auth.api.createApiKey(bad)).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    }
    expect((await t.auth.api.listApiKeys({ userId })).apiKeys).toHaveLength(1);
  });

  it("updateApiKey sets a refill (a quota starts full), keeps its schedule on a change, and clears it with null", async () => {
    const { t } = setup();
    const { headers } = await signedIn(t);
    const { apiKey } = await createKey(t, headers);
    const set = await t.auth.api.updateApiKey({ keyId: apiKey.id, refillAmount: 5, refillInterval: "1d" });
    const startedAt = new Date(t.clock.now()).toISOString();
    expect(set.apiKey).toMatchObject({
      remaining: 5,
      refillAmount: 5,
      refillInterval: 86_400_000,
      lastRefillAt: startedAt,
    });
    t.clock.advance(1000);
    const changed = await t.auth.api.updateApiKey({ keyId: apiKey.id, refillAmount: 7 });
    expect(changed.apiKey).toMatchObject({ remaining: 5, refillAmount: 7, lastRefillAt: startedAt });
    await expect(t.auth.api.updateApiKey({ keyId: apiKey.id, remaining: null })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    const cleared = await t.auth.api.updateApiKey({ keyId: apiKey.id, refillAmount: null, refillInterval: null });
    expect(cleared.apiKey).toMatchObject({
      refillAmount: null,
      refillInterval: null,
      lastRefillAt: null,
      remaining: 5,
    });
  });

  it("defaultRefillAmount / defaultRefillInterval apply to keys created over HTTP, which start full", async () => {
    const { t } = setup({ defaultRefillAmount: 100, defaultRefillInterval: "1d" });
    const { headers } = await signedIn(t);
    const { key, apiKey } = await createKey(t, headers);
    expect(apiKey).toMatchObject({ remaining: 100, refillAmount: 100, refillInterval: 86_400_000 });
    expect(await verify(t, key)).toMatchObject({ valid: true, apiKey: { remaining: 99 } });
  });
});

/** Two stores over one database of the run's kind (two pools / connections), or one shared memory store. */
async function twoStoresOverOneDatabase(): Promise<{ stores: [FullStore, FullStore]; dispose: () => Promise<void> }> {
  const kind = testStoreKind();
  if (kind === "memory") {
    const store = memoryStore();
    return { stores: [store, store], dispose: async () => undefined };
  }
  const database = kind === "postgres" ? await createTestPostgresDatabase() : await createTestSqliteFile();
  await migrateDatabase(database.url);
  const open = () =>
    kind === "postgres" ? postgresStore({ url: database.url, maxConnections: 5 }) : sqliteStore({ url: database.url });
  const stores: [FullStore, FullStore] = [open(), open()];
  return {
    stores,
    async dispose() {
      await Promise.all(stores.map((s) => s.close()));
      await database.dispose();
    },
  };
}

describe("an instance whose clock runs an hour ahead (issue 48 item 7)", () => {
  it("its use stamps the store's time: an instance on time uses the key once the window ends, not an hour later", async () => {
    const { stores, dispose } = await twoStoresOverOneDatabase();
    try {
      // Real clocks (the bound is the store's own clock): A an hour ahead, B on time.
      const a = createTestAuth({ store: stores[0], clock: { now: () => Date.now() + HOUR }, plugins: [apiKeys()] });
      const b = createTestAuth({ store: stores[1], clock: { now: () => Date.now() }, plugins: [apiKeys()] });
      const { userId } = await b.signUp("ada@example.com");
      const { key, apiKey } = await b.auth.api.createApiKey({ userId, rateLimitMax: 1, rateLimitWindow: "1s" });
      expect((await verify(a, key)).valid).toBe(true);
      const stamped = await b.store.apiKeys.findById(apiKey.id);
      expect(stamped!.windowStart!.getTime()).toBeLessThan(Date.now() + 60_000);
      expect((await verify(b, key)).error.code).toBe("RATE_LIMITED");
      // A is refused too, and told why: by its own clock the window ended, by the store's it has not.
      expect((await verify(a, key)).error.code).toBe("RATE_LIMITED");
      // The window A started ends within about two seconds of real time (1 s of lead, 1 s of window).
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      expect(await verify(b, key)).toMatchObject({ valid: true });
    } finally {
      await dispose();
    }
  });
});

describe("refills across instances", () => {
  it("two createAuth instances verifying concurrently at the refill instant refill once and admit exactly refillAmount", async () => {
    const { stores, dispose } = await twoStoresOverOneDatabase();
    try {
      const a = createTestAuth({ store: stores[0], plugins: [apiKeys()] });
      const b = createTestAuth({ store: stores[1], clock: a.clock, plugins: [apiKeys()] });
      const { userId } = await a.signUp("ada@example.com");
      const { key, apiKey } = await a.auth.api.createApiKey({
        userId,
        remaining: 0,
        refillAmount: 5,
        refillInterval: "1m",
      });
      a.clock.advance(60_000);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => verify(i % 2 === 0 ? a : b, key)));
      expect(answers.filter((r) => r.valid)).toHaveLength(5);
      expect(answers.filter((r) => !r.valid && r.error.code === "USAGE_EXCEEDED")).toHaveLength(15);
      expect(await b.store.apiKeys.findById(apiKey.id)).toMatchObject({
        remaining: 0,
        lastRefillAt: new Date(a.clock.now()),
      });
      // Nothing more until the next interval, on either instance.
      a.clock.advance(59_999);
      expect((await verify(b, key)).valid).toBe(false);
      a.clock.advance(1);
      expect(await verify(b, key)).toMatchObject({ valid: true, apiKey: { remaining: 4 } });
    } finally {
      await dispose();
    }
  });
});
