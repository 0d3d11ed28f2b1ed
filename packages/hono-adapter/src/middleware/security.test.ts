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

describe("CSRF", () => {
  it("refuses cookie-authenticated POSTs from a foreign or null Origin (403 INVALID_ORIGIN) or with none (403 MISSING_ORIGIN) and changes nothing", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    for (const [origin, code] of [
      ["https://evil.example", "INVALID_ORIGIN"],
      ["null", "INVALID_ORIGIN"],
      [null, "MISSING_ORIGIN"],
    ] as const) {
      const res = await t.request("POST", "/sign-out", { headers: cookieHeaders(token, origin) });
      expect(res.status, String(origin)).toBe(403);
      expect(await res.json()).toEqual({ code, message: expect.any(String) });
    }
    expect((await (await t.request("GET", "/get-session", { headers: bearer(token) })).json()).user.email).toBe(
      "ada@example.com",
    );
  });

  it("accepts a trusted Origin, a trusted Referer, and Bearer-only requests without Origin", async () => {
    const t = createTestAuth({ trustedOrigins: ["https://admin.example"] });
    const a = await t.signUp("a@example.com");
    const b = await t.signUp("b@example.com");
    const c = await t.signUp("c@example.com");
    expect(
      (await t.request("POST", "/sign-out", { headers: cookieHeaders(a.token, "https://admin.example") })).status,
    ).toBe(200);
    expect(
      (
        await t.request("POST", "/sign-out", {
          headers: { cookie: `__Host-latchkey.session=${b.token}`, referer: `${BASE_URL}/settings` },
        })
      ).status,
    ).toBe(200);
    expect((await t.request("POST", "/sign-out", { headers: bearer(c.token) })).status).toBe(200);
  });

  it("refuses cross-site navigations to sign-in", async () => {
    const t = createTestAuth();
    const res = await t.request("POST", "/sign-in/email", {
      body: { email: "a@example.com", password: "whatever it is" },
      headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" },
    });
    expect(res.status).toBe(403);
  });
});

describe("state-changing methods", () => {
  it("POST, PUT, PATCH and DELETE all pass the CSRF check and the body rules, on any path; GET passes neither", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      for (const path of ["/user", "/sign-out", "/no-such-endpoint"]) {
        const forged = await t.request(method, path, {
          headers: cookieHeaders(token, null),
          body: { name: "Mallory" },
        });
        expect(forged.status, `${method} ${path}`).toBe(403);
        expect((await forged.json()).code).toBe("MISSING_ORIGIN");
        const plain = await t.request(method, path, {
          headers: { ...bearer(token), "content-type": "text/plain" },
          body: "name=Mallory",
        });
        expect(plain.status, `${method} ${path}`).toBe(415);
      }
    }
    const read = await t.request("GET", "/get-session", { headers: cookieHeaders(token, null) });
    expect((await read.json()).user).toMatchObject({ email: "ada@example.com", name: null });
  });
});

describe("body rules", () => {
  it("415 for a non-JSON body, 413 over 64 KiB, 400 for malformed JSON and wrong types, never 5xx", async () => {
    const t = createTestAuth();
    const plain = await t.request("POST", "/sign-in/email", {
      body: "email=a",
      headers: { "content-type": "text/plain" },
    });
    expect(plain.status).toBe(415);
    expect((await plain.json()).code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const big = await t.request("POST", "/sign-in/email", {
      body: { email: "a@example.com", password: "x".repeat(70_000) },
    });
    expect(big.status).toBe(413);
    expect((await big.json()).code).toBe("PAYLOAD_TOO_LARGE");
    const declared = await t.request("POST", "/sign-in/email", {
      body: "{}",
      headers: { "content-length": String(70_000) },
    });
    expect(declared.status).toBe(413);
    const chunks = new TextEncoder().encode(JSON.stringify({ email: "a@example.com", password: "x".repeat(70_000) }));
    const streamed = await t.auth.handler(
      new Request("https://app.example/auth/sign-in/email", {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < chunks.length; i += 8192) controller.enqueue(chunks.subarray(i, i + 8192));
            controller.close();
          },
        }),
        duplex: "half",
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    const malformed = await t.request("POST", "/sign-in/email", {
      body: '{"email":',
      headers: { "content-type": "application/json; charset=UTF-8" },
    });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).code).toBe("INVALID_REQUEST");
    for (const body of ["[]", "null", '"text"', '{"email":[],"password":{}}']) {
      const res = await t.request("POST", "/sign-in/email", { body, headers: { "content-type": "application/json" } });
      expect(res.status, body).toBe(400);
      const json = await res.json();
      expect(json.code).toBe("INVALID_REQUEST");
    }
    const typed = await t.request("POST", "/sign-up/email", { body: { email: "a@example.com", password: 12345678 } });
    expect((await typed.json()).details).toEqual([expect.objectContaining({ path: "password" })]);
  });
});

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

describe("rate limits", () => {
  it("the 11th sign-in per minute from one IP is 429 RATE_LIMITED with Retry-After; another IP is unaffected", async () => {
    const t = createTestAuth();
    for (let i = 0; i < 10; i++) {
      const res = await t.request("POST", "/sign-in/email", {
        body: { email: `u${i}@example.com`, password: "wrong password" },
        ip: "203.0.113.5",
      });
      expect(res.status).toBe(401);
    }
    const limited = await t.request("POST", "/sign-in/email", {
      body: { email: "x@example.com", password: "wrong password" },
      ip: "203.0.113.5",
    });
    expect(limited.status).toBe(429);
    expect((await limited.json()).code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await t.request("POST", "/sign-in/email", {
      body: { email: "x@example.com", password: "wrong password" },
      ip: "203.0.113.6",
    });
    expect(other.status).toBe(401);
    t.clock.advance(60_000);
    const later = await t.request("POST", "/sign-in/email", {
      body: { email: "x@example.com", password: "wrong password" },
      ip: "203.0.113.5",
    });
    expect(later.status).toBe(401);
  });

  it("buckets IPv6 clients by /64", async () => {
    const t = createTestAuth({ rateLimit: { rules: { "/sign-in/email": { window: "1m", max: 2 } } } });
    const statuses = [];
    for (const ip of ["2001:db8:1:2::1", "2001:db8:1:2:ffff::9", "2001:0db8:0001:0002:aaaa::1"]) {
      statuses.push(
        (
          await t.request("POST", "/sign-in/email", {
            body: { email: "x@example.com", password: "wrong password" },
            ip,
          })
        ).status,
      );
    }
    expect(statuses).toEqual([401, 401, 429]);
  });

  it("counters live in the store (a second instance on the same store shares them)", async () => {
    const t = createTestAuth({ rateLimit: { rules: { "/sign-in/email": { window: "1m", max: 1 } } } });
    const t2 = createTestAuth({ store: t.store, rateLimit: { rules: { "/sign-in/email": { window: "1m", max: 1 } } } });
    t2.clock.set(t.clock.now());
    expect(
      (await t.request("POST", "/sign-in/email", { body: { email: "x@example.com", password: "wrong password" } }))
        .status,
    ).toBe(401);
    expect(
      (await t2.request("POST", "/sign-in/email", { body: { email: "x@example.com", password: "wrong password" } }))
        .status,
    ).toBe(429);
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

describe("CSRF: a cookie request without Origin or Referer", () => {
  it("is 403 MISSING_ORIGIN with its own message; an untrusted one stays INVALID_ORIGIN", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const missing = await t.request("POST", "/sign-out", { headers: cookieHeaders(token, null) });
    expect(missing.status).toBe(403);
    const missingBody = await missing.json();
    expect(missingBody.code).toBe("MISSING_ORIGIN");
    expect(missingBody.message).toMatch(/Origin/);
    const foreign = await t.request("POST", "/sign-out", { headers: cookieHeaders(token, "https://evil.example") });
    const foreignBody = await foreign.json();
    expect(foreignBody.code).toBe("INVALID_ORIGIN");
    expect(foreignBody.message).not.toBe(missingBody.message);
    expect((await t.auth.api.getSession(token))?.user.email).toBe("ada@example.com");
  });
});
