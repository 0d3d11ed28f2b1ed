import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { apiKeys, hashSecret as hashOf, type FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { BASE_URL, bearer, cookieHeaders, createTestAuth, type TestAuth } from "../../test/test-auth.ts";

// With the cache on, a cached get-session answers the JSON made once for its cache entry (views included). It
// must end with the entry: a change of the user, a slide of the session, a revocation.

const opened: TestAuth[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.auth.cache?.close()));
});

/** An auth with the cache on, once its carrier listens (PostgreSQL's LISTEN connection opens after createAuth). */
async function cached(): Promise<TestAuth> {
  const t = createTestAuth({ cache: {}, plugins: [apiKeys()] }) as TestAuth;
  opened.push(t);
  await vi.waitFor(() => expect(t.auth.cache?.stats().bypassed).toBe(false), { timeout: 10_000 });
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
    const t = await cached();
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
    const t = await cached();
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

/** A memory store that counts the session lookups that reach it (what the cache did not answer). */
function countingStore(): { store: FullStore; lookups: () => number } {
  const inner = memoryStore();
  let count = 0;
  const sessions = new Proxy(inner.sessions, {
    get(target, property, receiver) {
      if (property !== "findByTokenHash") return Reflect.get(target, property, receiver);
      return (hash: string) => {
        count++;
        return target.findByTokenHash(hash);
      };
    },
  });
  const store = new Proxy(inner, {
    get: (target, property, receiver) => (property === "sessions" ? sessions : Reflect.get(target, property, receiver)),
  });
  return { store, lookups: () => count };
}

describe("get-session answered from the cache at once", () => {
  it("reads no store for a cached live session; a slide, an expiry and an unknown token still go to the store", async () => {
    const { store, lookups } = countingStore();
    // Entries live longer than the sessions here, so a session's own expiry is what ends the last answers.
    const t = createTestAuth({
      store,
      cache: { ttl: "10m" },
      session: { expiresIn: "4m", updateAge: "2m", shortExpiresIn: "3m" },
    }) as TestAuth;
    opened.push(t);
    const sessions = t.auth.core.ctx.sessions;
    const { token } = await t.signUp("ada@example.com");
    const byCookie = () => t.request("GET", "/get-session", { headers: cookieHeaders(token) });

    const first = await getSession(t, token);
    expect(first.answer).not.toBeNull();
    // Known from memory alone (no promise, no store), with the answer's own bytes.
    expect(sessions.validateCached(token)?.json).toBe(first.text);
    const read = lookups();
    for (let i = 0; i < 3; i++) expect((await getSession(t, token)).text).toBe(first.text);
    expect(lookups()).toBe(read);

    // 2m30s in, the session is due to slide: that is left to the store (written, cookie re-sent, new expiry).
    t.clock.advance(150_000);
    expect(sessions.validateCached(token)).toBeUndefined();
    const slid = await byCookie();
    expect(slid.headers.get("set-cookie")).toContain(token);
    const slidAnswer = (await slid.json()) as Answer;
    expect(Date.parse(slidAnswer.session.expiresAt)).toBeGreaterThan(Date.parse(first.answer?.session.expiresAt ?? ""));
    const stored = await t.store.sessions.findByTokenHash(hashOf(token));
    expect(stored?.session.expiresAt.toISOString()).toBe(slidAnswer.session.expiresAt);
    expect((await byCookie()).headers.get("set-cookie")).toBeNull(); // slid once, then cached again

    // A "remember me: no" session never slides: past its expiry its cached entry is not answered, the store deletes it.
    const signIn = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "correct horse battery", rememberMe: false },
    });
    const short = ((await signIn.json()) as { credentials: { token: string } }).credentials.token;
    expect((await getSession(t, short)).answer).not.toBeNull();
    expect(sessions.validateCached(short)?.json).toBeDefined();
    t.clock.advance(3 * 60_000 + 1_000);
    expect(sessions.validateCached(short)).toBeUndefined();
    expect((await getSession(t, short)).answer).toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashOf(short))).toBeNull();

    // A token the cache never saw goes to the store; one that cannot be a token does not.
    const before = lookups();
    expect((await getSession(t, "x".repeat(43))).answer).toBeNull();
    expect(lookups()).toBe(before + 1);
    expect(sessions.validateCached("not-a-token")).toBeNull();
    expect((await getSession(t, "not-a-token")).answer).toBeNull();
    expect(lookups()).toBe(before + 1);
  });

  it("without the cache nothing is known before the store is asked", async () => {
    const t = createTestAuth() as TestAuth;
    const { token } = await t.signUp("ada@example.com");
    expect((await getSession(t, token)).answer).not.toBeNull();
    expect(t.auth.core.ctx.sessions.validateCached(token)).toBeUndefined();
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
    const t = await cached();
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
