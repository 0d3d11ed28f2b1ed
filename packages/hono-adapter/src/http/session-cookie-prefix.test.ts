import { describe, expect, it } from "vitest";
import { BASE_URL, createTestAuth } from "../../test/test-auth.ts";

// Review fix 10: the session cookie was `__Secure-latchkey.session`, which a sibling subdomain can set too (with
// `Domain=` the parent and a longer `Path`, so browsers send it first): cookie tossing fixed a victim's browser
// onto the attacker's session. Without a cookie domain the cookie is now `__Host-` (Secure, Path=/, no Domain),
// which only this host can set, and the server reads only that name.

const sessionUserId = async (t: ReturnType<typeof createTestAuth>, cookie: string) => {
  const res = await t.request("GET", "/get-session", { headers: { cookie } });
  return ((await res.json()) as { user: { id: string } } | null)?.user.id ?? null;
};

describe("session cookie prefix", () => {
  it("a session cookie tossed in from a sibling subdomain is not taken over the host's own", async () => {
    const t = createTestAuth();
    const res = await t.request("POST", "/sign-up/email", {
      body: { email: "victim@example.com", password: "victim password 1" },
    });
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(
      /^__Host-latchkey\.session=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
    );
    const victimToken = /^__Host-latchkey\.session=([^;]+)/.exec(setCookie)![1]!;
    const victimId = ((await res.json()) as { user: { id: string } }).user.id;
    const attacker = await t.signUp("attacker@example.com");

    // The tossed cookies arrive first, as a longer Path makes them; the host's own `__Host-` cookie wins.
    const tossed = `__Secure-latchkey.session=${attacker.token}; latchkey.session=${attacker.token}`;
    expect(await sessionUserId(t, `${tossed}; __Host-latchkey.session=${victimToken}`)).toBe(victimId);
    // Alone, a cookie without the expected prefix is no session at all.
    expect(await sessionUserId(t, tossed)).toBeNull();
    // Nor does it make a write look like a cookie-authenticated one of the attacker's.
    const write = await t.request("POST", "/sign-out", { headers: { cookie: tossed, origin: BASE_URL } });
    expect(write.status).toBe(200);
    expect(await sessionUserId(t, `__Host-latchkey.session=${attacker.token}`)).toBe(attacker.userId);
  });

  it("with a cookie domain the cookie keeps `__Secure-` (which allows Domain) and carries the domain", async () => {
    const t = createTestAuth({ cookies: { domain: "app.example" } });
    const res = await t.request("POST", "/sign-up/email", {
      body: { email: "ada@example.com", password: "ada password 1" },
    });
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^__Secure-latchkey\.session=[A-Za-z0-9_-]{43};.* Secure; Domain=app\.example$/);
    const token = /^__Secure-latchkey\.session=([^;]+)/.exec(setCookie)![1]!;
    expect(await sessionUserId(t, `__Secure-latchkey.session=${token}`)).not.toBeNull();
    expect(await sessionUserId(t, `__Host-latchkey.session=${token}`)).toBeNull();
  });
});
