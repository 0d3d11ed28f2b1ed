import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { bearer, BASE_URL, cookieHeaders, createTestAuth } from "../../test/test-auth.ts";

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "content-security-policy": "frame-ancestors 'none'",
  "strict-transport-security": "max-age=31536000; includeSubDomains",
};

function expectSecurityHeaders(res: Response) {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name), name).toBe(value);
}

describe("security headers", () => {
  it("are on successes, errors and 404s, with no-store on token-bearing answers", async () => {
    const t = createTestAuth();
    const ok = await t.request("POST", "/sign-up/email", {
      body: { email: "a@example.com", password: "long enough pw" },
    });
    expectSecurityHeaders(ok);
    expect(ok.headers.get("cache-control")).toBe("no-store");
    const err = await t.request("POST", "/sign-in/email", {
      body: { email: "a@example.com", password: "wrong password" },
    });
    expectSecurityHeaders(err);
    const missing = await t.request("GET", "/no-such-thing");
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe("NOT_FOUND");
    expectSecurityHeaders(missing);
    const outside = await t.auth.handler(new Request(`${BASE_URL}/elsewhere`));
    expect(outside.status).toBe(404);
    expectSecurityHeaders(outside);
  });

  it("mounted twice (host middleware and sub-app), a response gets them once; one a host layer replaces gets them again", async () => {
    const t = createTestAuth();
    const app = new Hono();
    app.use("*", t.auth.middleware);
    // A host middleware inside auth.middleware that swaps the auth sub-app's answer for its own Response.
    app.use("/auth/jwks-elsewhere", async (c, next) => {
      await next();
      c.res = new Response("replaced", { status: 200 });
    });
    app.route("/auth", t.auth.app);
    const verify = await app.request(`${BASE_URL}/auth/api-key/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expectSecurityHeaders(verify);
    expect(verify.headers.get("cache-control")).toBe("no-store");
    const replaced = await app.request(`${BASE_URL}/auth/jwks-elsewhere`);
    expect(await replaced.text()).toBe("replaced");
    expectSecurityHeaders(replaced);
  });

  it("the sub-app mounted alone (no auth.middleware, no root) puts them on every kind of answer itself", async () => {
    for (const cors of [false, true]) {
      const t = createTestAuth({ cors });
      const { token } = await t.signUp("ada@example.com");
      const app = new Hono();
      app.route("/auth", t.auth.app);
      const at = (path: string, init?: RequestInit) => app.request(`${BASE_URL}/auth${path}`, init);
      const answers = {
        "a session": await at("/get-session", { headers: bearer(token) }),
        "no session": await at("/get-session"),
        "a JSON answer": await at("/list-sessions", { headers: bearer(token) }),
        "401": await at("/list-sessions"),
        "400": await at("/sign-in/email", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: 1 }),
        }),
        "404": await at("/no-such-thing"),
        "405": await at("/get-session", { method: "DELETE" }),
      };
      for (const [kind, res] of Object.entries(answers)) {
        for (const [name, value] of Object.entries(SECURITY_HEADERS))
          expect(res.headers.get(name), `${kind} ${name} (cors ${cors})`).toBe(value);
        expect(res.headers.get("cache-control"), kind).toBe("no-store");
      }
    }
  });

  it("omits HSTS when cookies are not secure (development)", async () => {
    const t = createTestAuth({ environment: "development", cookies: { secure: false } });
    const res = await t.request("GET", "/get-session");
    expect(res.headers.get("strict-transport-security")).toBeNull();
  });
});

describe("mounted in a host app", () => {
  it("serves the sub-app under the host's prefix and protects host routes with requireUser", async () => {
    const t = createTestAuth();
    const app = new Hono();
    app.use("*", t.auth.middleware);
    app.route("/auth", t.auth.app);
    app.get("/me", t.auth.requireUser, (c) => c.json({ id: c.var.user.id, session: c.var.session.id }));
    app.get("/maybe", t.auth.optionalUser, (c) => c.json({ user: c.var.user?.email ?? null }));
    app.post("/settings", t.auth.requireSession, (c) => c.json({ ok: true }));
    const up = await app.request(`${BASE_URL}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", password: "long enough pw" }),
    });
    expect(up.status).toBe(200);
    const { credentials, user } = await up.json();
    const anon = await app.request(`${BASE_URL}/me`);
    expect(anon.status).toBe(401);
    expect(await anon.json()).toEqual({ code: "INVALID_CREDENTIALS", message: expect.any(String) });
    const me = await app.request(`${BASE_URL}/me`, { headers: bearer(credentials.token) });
    expect((await me.json()).id).toBe(user.id);
    expect(await (await app.request(`${BASE_URL}/maybe`)).json()).toEqual({ user: null });
    const forged = await app.request(`${BASE_URL}/settings`, {
      method: "POST",
      headers: cookieHeaders(credentials.token, "https://evil.example"),
    });
    expect(forged.status).toBe(403);
    expectSecurityHeaders(await app.request(`${BASE_URL}/me`));
  });
});

describe("OpenAPI and the explorer", () => {
  it("documents every route and serves the explorer with a local script (no CDN)", async () => {
    const t = createTestAuth();
    const doc = await (await t.request("GET", "/openapi.json")).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/sign-up/email",
        "/sign-in/email",
        "/sign-out",
        "/get-session",
        "/change-password",
        "/request-password-reset",
        "/reset-password",
      ]),
    );
    expect(doc.paths["/sign-in/email"].post.responses["401"]).toBeDefined();
    const page = await t.request("GET", "/reference");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('src="reference/scalar.js"');
    expect(html).not.toMatch(/https?:\/\/cdn/);
    // Scalar's hosted-service buttons, toolbar, agent and telemetry are off (the page stays offline).
    for (const setting of [
      '"hideClientButton":true',
      '"showDeveloperTools":"never"',
      '"telemetry":false',
      '"agent":{"disabled":true}',
      '"mcp":{"disabled":true}',
    ]) {
      expect(html.replace(/\s/g, "").replace(/&quot;/g, '"'), setting).toContain(setting);
    }
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self' 'nonce-");
    const script = await t.request("GET", "/reference/scalar.js");
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(1_000_000);
  });
});
