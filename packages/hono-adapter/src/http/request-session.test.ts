import { describe, expect, it } from "vitest";
import { fromSocket } from "./client-ip.ts";
import { requestSession } from "./request-session.ts";
import { BASE_URL, bearer, cookieHeaders, createTestAuth } from "../../test/test-auth.ts";

// The web twin of nodeSession, for frameworks that hand over a `Request` (SvelteKit hooks, Astro middleware).
describe("requestSession(auth)(request)", () => {
  it("finds the user and session by cookie and by Bearer, nulls without credentials or after sign-out", async () => {
    const t = createTestAuth();
    const ada = await t.signUp("ada@example.com");
    const sessionOf = requestSession(t.auth);
    const page = (headers: Record<string, string>) => new Request(`${BASE_URL}/dashboard`, { headers });

    const byCookie = await sessionOf(page(cookieHeaders(ada.token)));
    expect(byCookie.user).toMatchObject({ id: ada.userId, email: "ada@example.com" });
    const stored = await t.store.sessions.listByUser(ada.userId);
    expect(byCookie.session?.id).toBe(stored[0]!.id);
    expect(byCookie.setCookie).toEqual([]);
    const byBearer = await sessionOf(page(bearer(ada.token)));
    expect(byBearer.user?.id).toBe(ada.userId);
    expect(await sessionOf(page({}))).toEqual({ user: null, session: null, setCookie: [] });
    expect((await sessionOf(page({ cookie: "__Host-latchkey.session=not-a-token" }))).user).toBeNull();

    const out = await t.request("POST", "/sign-out", { headers: cookieHeaders(ada.token) });
    expect(out.status).toBe(200);
    expect(await t.store.sessions.listByUser(ada.userId)).toEqual([]);
    expect((await sessionOf(page(cookieHeaders(ada.token)))).user).toBeNull();
  });

  it("reads only the headers: a POST's body is left unread for the framework", async () => {
    const t = createTestAuth();
    const ada = await t.signUp("ada@example.com");
    const post = new Request(`${BASE_URL}/form`, { method: "POST", headers: cookieHeaders(ada.token), body: "a=1" });
    expect((await requestSession(t.auth)(post)).user?.id).toBe(ada.userId);
    expect(post.bodyUsed).toBe(false);
    expect(await post.text()).toBe("a=1");
  });

  it("sends the slid cookie back when a cookie session moved forward", async () => {
    const t = createTestAuth();
    const ada = await t.signUp("ada@example.com");
    // Past the update age (1 day by default), a request slides the session and re-sets the cookie.
    t.clock.advance(2 * 24 * 60 * 60 * 1000);
    const found = await requestSession(t.auth)(new Request(`${BASE_URL}/`, { headers: cookieHeaders(ada.token) }));
    expect(found.user?.id).toBe(ada.userId);
    expect(found.setCookie).toHaveLength(1);
    expect(found.setCookie[0]).toMatch(/^__Host-latchkey\.session=[^;]+; Max-Age=\d+; Path=\/; HttpOnly/);
  });
});

describe("fromSocket with a framework's client address", () => {
  it("takes env { clientAddress } (SvelteKit getClientAddress, Astro clientAddress) and never a header", () => {
    const request = new Request(`${BASE_URL}/`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    const context = (env: unknown) => ({ env }) as Parameters<typeof fromSocket>[1];
    expect(fromSocket(request, context({ clientAddress: "198.51.100.7" }))).toBe("198.51.100.7");
    expect(fromSocket(request, context({ clientAddress: "" }))).toBeNull();
    expect(fromSocket(request, context({}))).toBeNull();
  });
});
