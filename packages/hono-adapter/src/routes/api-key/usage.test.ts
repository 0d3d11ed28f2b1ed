import { describe, expect, it } from "vitest";
import type { TestAuth } from "../../../test/test-auth.ts";
import { createKey, setup, signedIn } from "../../../test/routes/api-key/fixtures.ts";

const DAY = 86_400_000;
const verify = async (t: TestAuth, body: Record<string, unknown>) =>
  (await t.request("POST", "/api-key/verify", { body })).json();
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe("GET /api-key/usage", () => {
  it("counts valid verifies and refusals by code per UTC day, in the counters port", async () => {
    const { t } = setup({ usage: true, grantablePermissions: { files: ["read"] } });
    const { headers, userId } = await signedIn(t);
    const { key, apiKey } = await createKey(t, headers, { permissions: { files: ["read"] } });
    const day1 = t.clock.now();
    for (let i = 0; i < 3; i++) expect((await verify(t, { key })).valid).toBe(true);
    expect((await verify(t, { key, permissions: { files: ["write"] } })).valid).toBe(false);
    t.clock.advance(DAY);
    const day2 = t.clock.now();
    expect((await verify(t, { key })).valid).toBe(true);
    await t.auth.api.updateApiKey({ keyId: apiKey.id, enabled: false });
    expect((await verify(t, { key })).valid).toBe(false);
    expect((await verify(t, { key })).valid).toBe(false);
    // A key nobody owns is not counted anywhere (no key id to count against).
    expect((await verify(t, { key: `lk_${"Z".repeat(40)}` })).valid).toBe(false);

    const res = await t.request("GET", `/api-key/usage?keyId=${apiKey.id}&days=3`, { headers });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      days: [
        { date: utcDate(day1 - DAY), valid: 0, refused: {} },
        { date: utcDate(day1), valid: 3, refused: { INSUFFICIENT_PERMISSIONS: 1 } },
        { date: utcDate(day2), valid: 1, refused: { KEY_DISABLED: 2 } },
      ],
    });
    // The counts live in the counters port, keyed by key and day.
    expect(await t.counters.peek(`api-key-usage:${apiKey.id}:${utcDate(day1)}:valid`, t.clock.now())).toMatchObject({
      count: 3,
    });
    const viaApi = await t.auth.api.getApiKeyUsage({ keyId: apiKey.id });
    expect(viaApi.days).toHaveLength(30);
    expect(viaApi.days.at(-1)).toEqual({ date: utcDate(day2), valid: 1, refused: { KEY_DISABLED: 2 } });
    expect((await t.auth.api.getApiKeyUsage({ keyId: apiKey.id, userId, days: 1 })).days).toHaveLength(1);
  });

  it("a day's counts expire after usageRetention", async () => {
    const { t } = setup({ usage: true, usageRetention: "2d" });
    const { headers } = await signedIn(t);
    const { key, apiKey } = await createKey(t, headers);
    const day1 = t.clock.now();
    await verify(t, { key });
    t.clock.advance(2 * DAY);
    const kept = await t.auth.api.getApiKeyUsage({ keyId: apiKey.id, days: 2 });
    expect(kept.days[0]).toEqual({ date: utcDate(day1 + DAY), valid: 0, refused: {} });
    const key1 = `api-key-usage:${apiKey.id}:${utcDate(day1)}:valid`;
    // Still there up to the end of day1 + 2 days, gone after.
    const dayEnd = (Math.floor(day1 / DAY) + 1) * DAY;
    expect(await t.counters.peek(key1, dayEnd + 2 * DAY - 1)).toMatchObject({ count: 1 });
    expect(await t.counters.peek(key1, dayEnd + 2 * DAY)).toBeNull();
    const tooFar = await t.request("GET", `/api-key/usage?keyId=${apiKey.id}&days=3`, { headers });
    expect(tooFar.status).toBe(400);
  });

  it("another user's key is 404 KEY_NOT_FOUND; usage off is 404 NOT_FOUND and verifies write no counter", async () => {
    const { t } = setup();
    const { headers } = await signedIn(t);
    const other = await signedIn(t, "other@example.com");
    const { key, apiKey } = await createKey(t, headers);
    const theirs = await createKey(t, other.headers);
    await verify(t, { key });
    const off = await t.request("GET", `/api-key/usage?keyId=${apiKey.id}`, { headers });
    expect(off.status).toBe(404);
    expect((await off.json()).code).toBe("NOT_FOUND");
    expect(
      await t.counters.peek(`api-key-usage:${apiKey.id}:${utcDate(t.clock.now())}:valid`, t.clock.now()),
    ).toBeNull();
    const stolen = await t.request("GET", `/api-key/usage?keyId=${theirs.apiKey.id}`, { headers });
    expect(stolen.status).toBe(404);
    expect((await stolen.json()).code).toBe("KEY_NOT_FOUND");
    expect((await t.request("GET", `/api-key/usage?keyId=${apiKey.id}`)).status).toBe(401);
    expect((await t.request("GET", `/api-key/usage?keyId=${apiKey.id}&days=0`, { headers })).status).toBe(400);
  });
});

describe("apiKeys({ maxPerUser })", () => {
  it("a user at the cap gets 409 TOO_MANY_KEYS over HTTP and auth.api, and no key is stored", async () => {
    const { t } = setup({ maxPerUser: 2 });
    const { headers, userId } = await signedIn(t);
    await createKey(t, headers);
    await t.auth.api.createApiKey({ userId });
    const res = await t.request("POST", "/api-key/create", { body: { name: "third" }, headers });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: "TOO_MANY_KEYS" });
    await expect(t.auth.api.createApiKey({ userId })).rejects.toMatchObject({ code: "TOO_MANY_KEYS" });
    expect((await t.auth.api.listApiKeys({ userId })).apiKeys).toHaveLength(2);
    // Parallel creates past the cap: the user never holds more than the cap.
    const other = await signedIn(t, "other@example.com");
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.request("POST", "/api-key/create", { body: {}, headers: other.headers })),
    );
    expect(answers.filter((r) => r.status === 200).length).toBeLessThanOrEqual(2);
    expect(answers.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    expect((await t.auth.api.listApiKeys({ userId: other.userId })).apiKeys.length).toBeLessThanOrEqual(2);
  });

  it("defaults to 100 keys per user; null lifts the cap", async () => {
    const { t } = setup();
    const { userId } = await signedIn(t);
    for (let i = 0; i < 100; i++) await t.auth.api.createApiKey({ userId });
    await expect(t.auth.api.createApiKey({ userId })).rejects.toMatchObject({ code: "TOO_MANY_KEYS" });
    const free = setup({ maxPerUser: null });
    const owner = await signedIn(free.t);
    for (let i = 0; i < 101; i++) await free.t.auth.api.createApiKey({ userId: owner.userId });
    expect((await free.t.auth.api.listApiKeys({ userId: owner.userId, limit: 100 })).nextCursor).not.toBeNull();
  });
});

describe("GET /api-key/usage costs one counters read and has a per-IP rule", () => {
  it("a 90-day request is one peekMany, never a read per day and outcome", async () => {
    const { t } = setup({ usage: true });
    const { headers } = await signedIn(t);
    const { key, apiKey } = await createKey(t, headers);
    await verify(t, { key });
    const calls = { peek: 0, peekMany: 0 };
    const { counters } = t.auth.core.ctx.store;
    const peek = counters.peek.bind(counters);
    const peekMany = counters.peekMany!.bind(counters);
    counters.peek = (k, now) => {
      calls.peek++;
      return peek(k, now);
    };
    counters.peekMany = (keys, now) => {
      calls.peekMany++;
      return peekMany(keys, now);
    };
    try {
      const res = await t.request("GET", `/api-key/usage?keyId=${apiKey.id}&days=90`, { headers });
      expect(res.status).toBe(200);
      const { days } = await res.json();
      expect(days).toHaveLength(90);
      expect(days.at(-1)).toMatchObject({ valid: 1 });
    } finally {
      counters.peek = peek;
      counters.peekMany = peekMany;
    }
    expect(calls).toEqual({ peek: 0, peekMany: 1 });
  });

  it("is limited per IP (30 a minute, then 429 with Retry-After)", async () => {
    const { t } = setup({ usage: true });
    const { headers } = await signedIn(t);
    const { apiKey } = await createKey(t, headers);
    const get = () => t.request("GET", `/api-key/usage?keyId=${apiKey.id}&days=1`, { headers, ip: "203.0.113.77" });
    for (let i = 0; i < 30; i++) expect((await get()).status).toBe(200);
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).not.toBeNull();
    // Another address is not affected.
    const other = await t.request("GET", `/api-key/usage?keyId=${apiKey.id}&days=1`, { headers, ip: "203.0.113.78" });
    expect(other.status).toBe(200);
  });
});
