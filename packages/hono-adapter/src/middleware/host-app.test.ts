import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { hashSecret } from "@latchkey/core";
import { BASE_URL, bearer, cookieHeaders, createTestAuth } from "../../test/test-auth.ts";

// A host app with `auth.middleware` in front of its own routes (issue 32, items 4 to 7).

const PASSWORD = "long enough pw";

function hostApp(t: ReturnType<typeof createTestAuth>) {
  const app = new Hono();
  app.use("*", t.auth.middleware);
  app.route("/auth", t.auth.app);
  return app;
}

function expectSecurityHeaders(res: Response) {
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("x-frame-options")).toBe("DENY");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
}

// An upstream for proxied responses: `fetch()` answers carry immutable headers.
let upstream: Server;
let upstreamUrl: string;
beforeAll(async () => {
  upstream = createServer((req, res) => {
    if (req.url === "/stream") {
      res.writeHead(200, { "content-type": "text/plain", "x-upstream": "yes" });
      let n = 0;
      const timer = setInterval(() => {
        res.write(`chunk ${n}\n`);
        if (++n === 5) {
          clearInterval(timer);
          res.end();
        }
      }, 5);
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "x-upstream": "yes" });
    res.end(JSON.stringify({ proxied: true }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});

describe("auth.middleware over host routes that return immutable responses", () => {
  it("a host route returning Response.redirect(), a proxied fetch() response or a streamed body is not turned into a 500", async () => {
    const t = createTestAuth();
    const app = hostApp(t);
    app.get("/go", () => Response.redirect(`${BASE_URL}/elsewhere`, 302));
    app.get("/proxy", () => fetch(`${upstreamUrl}/json`));
    app.get("/proxy-stream", () => fetch(`${upstreamUrl}/stream`));
    app.get(
      "/stream",
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("a"));
              controller.enqueue(new TextEncoder().encode("b"));
              controller.close();
            },
          }),
        ),
    );

    const redirect = await app.request(`${BASE_URL}/go`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe(`${BASE_URL}/elsewhere`);
    expectSecurityHeaders(redirect);

    const proxied = await app.request(`${BASE_URL}/proxy`);
    expect(proxied.status).toBe(200);
    expect(proxied.headers.get("x-upstream")).toBe("yes");
    expect(await proxied.json()).toEqual({ proxied: true });
    expectSecurityHeaders(proxied);

    const streamed = await app.request(`${BASE_URL}/proxy-stream`);
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toBe("chunk 0\nchunk 1\nchunk 2\nchunk 3\nchunk 4\n");
    expectSecurityHeaders(streamed);

    const own = await app.request(`${BASE_URL}/stream`);
    expect(await own.text()).toBe("ab");
    expectSecurityHeaders(own);
  });
});

describe("auth.middleware keeps the refreshed session cookie", () => {
  it("a host route that returns its own Response behind requireUser or optionalUser still sends the slid session cookie", async () => {
    const t = createTestAuth();
    const app = hostApp(t);
    app.get("/own", t.auth.requireUser, () => new Response("mine", { headers: { "x-own": "1" } }));
    app.get("/own-optional", t.auth.optionalUser, () => new Response("mine"));
    app.get("/redirect", t.auth.requireUser, () => Response.redirect(`${BASE_URL}/home`, 303));
    app.get("/json", t.auth.requireUser, (c) => c.json({ ok: true }));
    for (const path of ["/own", "/own-optional", "/redirect"]) {
      const { token } = await t.signUp(`slide${path.replace(/\W/g, "")}@example.com`);
      const before = (await t.store.sessions.findByTokenHash(hashSecret(token)))!.session.expiresAt;
      t.clock.advance(2 * 86_400_000);
      const res = await app.request(`${BASE_URL}${path}`, { headers: cookieHeaders(token) });
      expect(res.status, path).toBeLessThan(400);
      const after = (await t.store.sessions.findByTokenHash(hashSecret(token)))!.session.expiresAt;
      // The server-side expiry moved, so the browser must get the cookie that matches it.
      expect(after.getTime() - before.getTime(), path).toBe(2 * 86_400_000);
      const cookies = res.headers.getSetCookie();
      expect(cookies, path).toHaveLength(1);
      expect(cookies[0], path).toContain(`=${token};`);
      expect(cookies[0], path).toContain("Max-Age=604800");
    }
    // A route that answers through Hono's helpers gets it once, not twice.
    const { token } = await t.signUp("json@example.com");
    t.clock.advance(2 * 86_400_000);
    const res = await app.request(`${BASE_URL}/json`, { headers: cookieHeaders(token) });
    expect(res.headers.getSetCookie()).toHaveLength(1);
  });
});

describe("auth.middleware renders errors of host routes", () => {
  it("a plain Error or a 5xx HTTPException in a host route answers the JSON 500 without message or stack, logged once", async () => {
    const t = createTestAuth();
    const app = hostApp(t);
    app.get("/boom", () => {
      throw new Error("database password is hunter2");
    });
    app.get("/http-500", () => {
      throw new HTTPException(500, { message: "upstream secret token abc" });
    });
    app.get("/http-503", () => {
      throw new HTTPException(503, { message: "internal host name db-7.internal" });
    });
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      for (const path of ["/boom", "/http-500", "/http-503"]) {
        spy.mockClear();
        const res = await app.request(`${BASE_URL}${path}`);
        const text = await res.text();
        expect(res.status, path).toBe(500);
        expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
        expect(JSON.parse(text), path).toEqual({ code: "INTERNAL_ERROR", message: "Something went wrong" });
        expect(text, path).not.toMatch(/hunter2|secret|db-7|at .*\.ts/);
        expectSecurityHeaders(res);
        if (path === "/boom") {
          // Hono's onError logs it (with its stack); auth.middleware does not log it a second time.
          const mentions = spy.mock.calls.filter((call) => call.some((a) => String(a).includes("hunter2")));
          expect(mentions).toHaveLength(1);
        }
      }
    } finally {
      spy.mockRestore();
    }
  });

  it("an AuthError renders as its JSON error; a 4xx HTTPException and a host onError's own 4xx answer stay the host's", async () => {
    const t = createTestAuth();
    // Hono's default onError.
    const app = hostApp(t);
    app.get("/teapot", () => {
      throw new HTTPException(418, { message: "short and stout" });
    });
    app.get("/me", t.auth.requireUser, (c) => c.json(c.var.user));
    const teapot = await app.request(`${BASE_URL}/teapot`);
    expect(teapot.status).toBe(418);
    expect(await teapot.text()).toBe("short and stout");
    const anon = await app.request(`${BASE_URL}/me`, { headers: bearer("x".repeat(43)) });
    expect(anon.status).toBe(401);
    expect(await anon.json()).toEqual({ code: "INVALID_CREDENTIALS", message: expect.any(String) });
    // The host's own onError: its 4xx answer stays; its 5xx answer becomes the bare JSON 500.
    const own = hostApp(t);
    own.get("/mine", () => {
      throw new RangeError("mine");
    });
    own.get("/theirs", () => {
      throw new TypeError("theirs");
    });
    own.onError((error, c) =>
      error instanceof RangeError ? c.json({ host: "handled" }, 404) : c.text(error.message, 500),
    );
    const mine = await own.request(`${BASE_URL}/mine`);
    expect(mine.status).toBe(404);
    expect(await mine.json()).toEqual({ host: "handled" });
    const theirs = await own.request(`${BASE_URL}/theirs`);
    expect(theirs.status).toBe(500);
    expect(await theirs.json()).toEqual({ code: "INTERNAL_ERROR", message: "Something went wrong" });
  });
});

describe("the body guard counts bytes", () => {
  it("a hand-built Request declaring content-length: 10 with a 100 KB body is 413, and nothing is written", async () => {
    const t = createTestAuth();
    const email = "big@example.com";
    const body = JSON.stringify({ email, password: PASSWORD, name: "x".repeat(100_000) });
    for (const handler of [(r: Request) => t.auth.handler(r), (r: Request) => hostApp(t).fetch(r)]) {
      const res = await handler(
        new Request(`${BASE_URL}/auth/sign-up/email`, {
          method: "POST",
          headers: { "content-type": "application/json", "content-length": "10" },
          body,
        }),
      );
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ code: "PAYLOAD_TOO_LARGE", message: expect.any(String) });
    }
    expect(await t.store.users.findByEmail(email)).toBeNull();
    // A small body under a too-small declared length is read in full (its real bytes), not cut off or refused.
    const small = JSON.stringify({ email, password: PASSWORD });
    const ok = await t.auth.handler(
      new Request(`${BASE_URL}/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": "10" },
        body: small,
      }),
    );
    expect(ok.status).toBe(200);
    expect((await t.store.users.findByEmail(email))?.email).toBe(email);
  });
});
