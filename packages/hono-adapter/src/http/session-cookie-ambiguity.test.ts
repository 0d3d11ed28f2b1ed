import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { BASE_URL, bearer, createTestAuth } from "../../test/test-auth.ts";

// Issue 50, item 8: with `cookies.domain` set the cookie is `__Secure-` (`__Host-` forbids Domain), which a sibling
// subdomain can set too, for the parent domain and with a longer Path so that browsers send it first. The reader
// took the first cookie of the name: the victim's browser rode the attacker's session. Two session cookies are now
// ambiguous: no session, and every one the answer can reach is cleared.

const NAME = "__Secure-latchkey.session";

function setCookies(res: Response): string[] {
  return res.headers.getSetCookie();
}

/** The cookies that expire `name` at each path above `/auth/get-session`, for the domain and host-only. */
function clearedAt(paths: string[], domain: string | null): string[] {
  return paths.map(
    (path) =>
      `${NAME}=; Max-Age=0; Path=${path}; HttpOnly; SameSite=Lax; Secure${domain === null ? "" : `; Domain=${domain}`}`,
  );
}

describe("two session cookies of the same name", () => {
  it("with cookies.domain: no session whichever comes first, every reachable one cleared, the sole cookie still works", async () => {
    const t = createTestAuth({ cookies: { domain: "app.example" } });
    const victim = await t.signUp("victim@example.com");
    const attacker = await t.signUp("attacker@example.com");
    const sole = await t.request("GET", "/get-session", { headers: { cookie: `${NAME}=${victim.token}` } });
    expect(((await sole.json()) as { user: { id: string } }).user.id).toBe(victim.userId);

    const paths = ["/", "/auth", "/auth/get-session"];
    const expected = [...clearedAt(paths, "app.example"), ...clearedAt(paths, null)];
    for (const cookie of [
      `${NAME}=${attacker.token}; other=1; ${NAME}=${victim.token}`,
      `${NAME}=${victim.token}; ${NAME}=${attacker.token}`,
    ]) {
      const res = await t.request("GET", "/get-session", { headers: { cookie } });
      expect(res.status).toBe(200);
      expect(await res.json()).toBeNull();
      expect(setCookies(res)).toEqual(expected);
      // A cookie-authenticated route: 401, and the same clearing.
      const me = await t.request("GET", "/api-key/list", { headers: { cookie } });
      expect([401, 404]).toContain(me.status);
      const write = await t.request("PATCH", "/user", { headers: { cookie, origin: BASE_URL }, body: { name: "X" } });
      expect(write.status).toBe(401);
      expect(setCookies(write)).toEqual(expect.arrayContaining(clearedAt(["/", "/auth", "/auth/user"], "app.example")));
    }
    // Nothing was signed out or changed: each session still works on its own.
    expect((await t.auth.api.getSession(victim.token))?.user.id).toBe(victim.userId);
    expect((await t.auth.api.getSession(attacker.token))?.user.id).toBe(attacker.userId);
    expect((await t.store.users.findById(victim.userId))?.name).not.toBe("X");

    // Sign-out with both: neither session is revoked (neither is trusted), both cookies are cleared.
    const out = await t.request("POST", "/sign-out", {
      headers: { cookie: `${NAME}=${attacker.token}; ${NAME}=${victim.token}`, origin: BASE_URL },
    });
    expect(out.status).toBe(200);
    expect(setCookies(out)).toEqual([
      ...clearedAt(["/", "/auth", "/auth/sign-out"], "app.example"),
      ...clearedAt(["/", "/auth", "/auth/sign-out"], null),
    ]);
    expect((await t.auth.api.getSession(victim.token))?.user.id).toBe(victim.userId);

    // A Bearer token wins over the cookies, as it always does: no ambiguity to resolve.
    const withBearer = await t.request("GET", "/get-session", {
      headers: { ...bearer(victim.token), cookie: `${NAME}=${attacker.token}; ${NAME}=${victim.token}` },
    });
    expect(((await withBearer.json()) as { user: { id: string } }).user.id).toBe(victim.userId);
    expect(setCookies(withBearer).filter((c) => c.includes("Max-Age=0"))).toEqual([]);
  });

  it("behind auth.middleware, a host route guarded by requireUser answers 401 and carries the clearing cookies", async () => {
    const t = createTestAuth({ cookies: { domain: "app.example" } });
    const victim = await t.signUp("victim@example.com");
    const attacker = await t.signUp("attacker@example.com");
    const app = new Hono();
    app.use("*", t.auth.middleware);
    app.get("/me", t.auth.requireUser, (c) => c.json({ id: c.var.user.id }));
    app.get("/maybe", t.auth.optionalUser, (c) => new Response(JSON.stringify({ user: c.var.user })));
    const cookie = `${NAME}=${attacker.token}; ${NAME}=${victim.token}`;
    const guarded = await app.request(`${BASE_URL}/me`, { headers: { cookie } });
    expect(guarded.status).toBe(401);
    expect(setCookies(guarded)).toEqual([...clearedAt(["/", "/me"], "app.example"), ...clearedAt(["/", "/me"], null)]);
    // A host route that returns its own Response still sends them.
    const optional = await app.request(`${BASE_URL}/maybe`, { headers: { cookie } });
    expect(await optional.json()).toEqual({ user: null });
    expect(setCookies(optional)).toHaveLength(4);
  });

  it("without a domain, two `__Host-` cookies are ambiguous too; the one clearing cookie is the host's at /", async () => {
    const t = createTestAuth();
    const victim = await t.signUp("victim@example.com");
    const attacker = await t.signUp("attacker@example.com");
    const res = await t.request("GET", "/get-session", {
      headers: { cookie: `__Host-latchkey.session=${attacker.token}; __Host-latchkey.session=${victim.token}` },
    });
    expect(await res.json()).toBeNull();
    expect(setCookies(res)).toEqual(["__Host-latchkey.session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure"]);
  });
});
