import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { apiKeys } from "@latchkey/core";
import { BASE_URL, bearer, createTestAuth, type TestAuth } from "../../test/test-auth.ts";

// With the cache on, a cached get-session answers the JSON made once for its cache entry (views included). It
// must end with the entry: a change of the user, a slide of the session, a revocation.

const opened: TestAuth[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.auth.cache?.close()));
});

function cached(): TestAuth {
  const t = createTestAuth({ cache: {}, plugins: [apiKeys()] }) as TestAuth;
  opened.push(t);
  return t;
}

interface Answer {
  user: { name: string | null; updatedAt: string };
  session: { expiresAt: string; updatedAt: string };
}

async function getSession(t: TestAuth, token: string): Promise<{ text: string; answer: Answer | null }> {
  const text = await (await t.request("GET", "/get-session", { headers: bearer(token) })).text();
  return { text, answer: JSON.parse(text) as Answer | null };
}

describe("get-session from the cache: the answer made once per entry", () => {
  it("answers the same bytes from the entry, and the new ones after a user update, a slide and a sign-out", async () => {
    const t = cached();
    const { token } = await t.signUp("ada@example.com");
    const first = await getSession(t, token);
    const hits = t.auth.cache?.stats().hits ?? 0;
    const second = await getSession(t, token);
    expect(t.auth.cache?.stats().hits).toBeGreaterThan(hits);
    expect(second.text).toBe(first.text);

    // A change of the user drops the entry: the answer is made again from the new record.
    t.clock.advance(1_000);
    const patched = await t.request("PATCH", "/user", {
      headers: { ...bearer(token), origin: BASE_URL },
      body: { name: "Ada Lovelace" },
    });
    expect(patched.status).toBe(200);
    const renamed = await getSession(t, token);
    expect(renamed.answer?.user.name).toBe("Ada Lovelace");
    expect(renamed.answer?.user.updatedAt).not.toBe(first.answer?.user.updatedAt);
    expect((await getSession(t, token)).text).toBe(renamed.text); // cached again, with the new name

    // Past `updateAge` (1 day) the session slides: the answer carries the new expiry, then is cached as it is.
    t.clock.advance(25 * 3_600_000);
    const slid = await getSession(t, token);
    expect(Date.parse(slid.answer?.session.expiresAt ?? "")).toBeGreaterThan(
      Date.parse(renamed.answer?.session.expiresAt ?? ""),
    );
    const after = await getSession(t, token);
    expect(after.text).toBe(slid.text);
    expect(after.answer?.session.expiresAt).toBe(slid.answer?.session.expiresAt);

    // Signed out: no answer from the entry.
    expect((await t.request("POST", "/sign-out", { headers: bearer(token) })).status).toBe(200);
    expect((await getSession(t, token)).answer).toBeNull();
  });

  it("each request gets its own views: a host route that changes its copy changes no other answer", async () => {
    const t = cached();
    const { token } = await t.signUp("ada@example.com", undefined, { name: "Ada" });
    const app = new Hono();
    app.use("*", t.auth.middleware);
    app.route("/auth", t.auth.app);
    app.get("/me", t.auth.requireUser, (c) => {
      const name = c.var.user.name;
      c.var.user.name = "changed by the host";
      c.var.session.expiresAt = "never";
      return c.json({ name });
    });
    const me = async () =>
      (await (await app.request(`${BASE_URL}/me`, { headers: bearer(token) })).json()) as { name: string };
    expect(await me()).toEqual({ name: "Ada" });
    expect(await me()).toEqual({ name: "Ada" });
    const answer = (await getSession(t, token)).answer;
    expect(answer?.user.name).toBe("Ada");
    expect(answer?.session.expiresAt).not.toBe("never");
  });
});

interface KeyApi {
  createApiKey(i: { userId: string; name: string }): Promise<{ key: string; apiKey: { id: string } }>;
  updateApiKey(i: { keyId: string; name: string }): Promise<unknown>;
  verifyApiKey(i: { key: string }): Promise<{
    valid: boolean;
    apiKey: { name: string; lastUsedAt: string | null } | null;
    user: { name: string | null } | null;
  }>;
}

describe("API-key verify from the cache: the views made once per entry", () => {
  it("a rename and a usage stamp reach the views; each caller gets its own copies", async () => {
    const t = cached();
    const { userId } = await t.signUp("ada@example.com");
    const api = t.auth.api as unknown as KeyApi;
    const { key, apiKey } = await api.createApiKey({ userId, name: "first" });
    const verify = async () => {
      const res = await t.request("POST", "/api-key/verify", { body: { key } });
      expect(res.status).toBe(200);
      return (await res.json()) as Awaited<ReturnType<KeyApi["verifyApiKey"]>>;
    };
    const one = await verify();
    const stamped = one.apiKey?.lastUsedAt;
    expect(stamped).not.toBeNull();
    const hits = t.auth.cache?.stats().hits ?? 0;
    expect(await verify()).toEqual(one);
    expect(t.auth.cache?.stats().hits).toBeGreaterThan(hits);

    // A caller that changes its result changes nothing the next one sees.
    const mine = await api.verifyApiKey({ key });
    if (mine.apiKey) mine.apiKey.name = "changed by the caller";
    expect((await api.verifyApiKey({ key })).apiKey?.name).toBe("first");

    // Past `lastUsedResolution` (1 minute) the stamp moves, in the answer and in what the entry answers next.
    t.clock.advance(61_000);
    const later = await verify();
    expect(later.apiKey?.lastUsedAt).not.toBe(stamped);
    expect((await verify()).apiKey?.lastUsedAt).toBe(later.apiKey?.lastUsedAt);

    await api.updateApiKey({ keyId: apiKey.id, name: "renamed" });
    expect((await verify()).apiKey?.name).toBe("renamed");
    expect((await verify()).apiKey?.name).toBe("renamed");
  });
});
