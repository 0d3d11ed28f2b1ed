import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { cors } from "hono/cors";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { jwt } from "@latchkey/core";
import { BASE_URL, bearer, cookieHeaders, createTestAuth } from "../../../test/test-auth.ts";
import { startHttpServer } from "../../../test/routes/jwt/test-fixtures.ts";

describe("set-auth-jwt on get-session", () => {
  it("carries a JWT for the session that verifies against /jwks, and exposes the header", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token: session, userId } = await t.signUp("ada@example.com");
    const res = await t.request("GET", "/get-session", { headers: bearer(session) });
    expect(res.status).toBe(200);
    const header = res.headers.get("set-auth-jwt");
    expect(header).toBeTruthy();
    expect(res.headers.get("access-control-expose-headers")).toContain("set-auth-jwt");
    const server = await startHttpServer(t.auth);
    try {
      const { payload } = await jwtVerify(header!, createRemoteJWKSet(new URL(`${server.url}/auth/jwks`)), {
        issuer: BASE_URL,
        audience: BASE_URL,
        currentDate: new Date(t.clock.now()),
      });
      expect(payload.sub).toBe(userId);
      expect(payload.sid).toBe(((await res.json()) as { session: { id: string } }).session.id);
    } finally {
      await server.close();
    }
  });

  // A host app that runs its own CORS middleware in front of the mounted sub-app (no createAuth({ cors })).
  function hostWith(t: ReturnType<typeof createTestAuth>, before: (app: Hono) => void) {
    const app = new Hono();
    before(app);
    app.use("*", t.auth.middleware);
    app.route("/auth", t.auth.app);
    return (headers: Record<string, string>) =>
      app.request(`${BASE_URL}/auth/get-session`, { headers: { ...headers, origin: "https://spa.example" } });
  }

  const exposed = (res: Response) =>
    (res.headers.get("access-control-expose-headers") ?? "").split(",").map((h) => h.trim());

  it("a host's CORS middleware (headers set on c.res before the route): its list gains set-auth-jwt once", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token } = await t.signUp("ada@example.com");
    const get = hostWith(t, (app) =>
      app.use("*", cors({ origin: "https://spa.example", credentials: true, exposeHeaders: ["x-request-id"] })),
    );
    const res = await get(bearer(token));
    expect(res.status).toBe(200);
    expect(res.headers.get("set-auth-jwt")).toMatch(/^ey/);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://spa.example");
    expect(exposed(res)).toEqual(["x-request-id", "set-auth-jwt"]);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");

    const listed = hostWith(t, (app) =>
      app.use("*", cors({ origin: "https://spa.example", exposeHeaders: ["Set-Auth-JWT", "x-request-id"] })),
    );
    expect(exposed(await listed(bearer(token)))).toEqual(["Set-Auth-JWT", "x-request-id"]);
  });

  it("a host middleware that lists exposed headers with c.header() before the route: set-auth-jwt appended", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token } = await t.signUp("ada@example.com");
    const get = hostWith(t, (app) =>
      app.use("*", async (c, next) => {
        c.header("access-control-expose-headers", "x-trace");
        c.header("x-host", "yes");
        await next();
      }),
    );
    const res = await get({ cookie: cookieHeaders(token).cookie });
    expect(res.headers.get("set-auth-jwt")).toMatch(/^ey/);
    expect(exposed(res)).toEqual(["x-trace", "set-auth-jwt"]);
    expect(res.headers.get("x-host")).toBe("yes");
    expect(((await res.json()) as { user: { email: string } }).user.email).toBe("ada@example.com");
    expect(exposed(await get(bearer(token)))).toEqual(["x-trace", "set-auth-jwt"]);
  });

  it("the answer is built once from its JSON text, never remade around a stream of its body", async () => {
    // A server adapter (@hono/node-server) sends a text body as it is, but must materialize a full web Response
    // and pump its stream when Hono rebuilds an answer from `res.body`: what reading `c.res` too early causes.
    const t = createTestAuth({ plugins: [jwt()] });
    const { token } = await t.signUp("ada@example.com");
    const host = new Hono();
    host.use("*", t.auth.middleware);
    host.route("/auth", t.auth.app);
    const Original = globalThis.Response;
    const streamed: string[] = [];
    globalThis.Response = class extends Original {
      constructor(body?: BodyInit | null, init?: ResponseInit) {
        if (body instanceof ReadableStream) streamed.push(new Error().stack ?? "");
        super(body, init);
      }
    } as typeof Response;
    let answers: Response[];
    try {
      answers = [
        await t.request("GET", "/get-session", { headers: bearer(token) }),
        await t.request("GET", "/get-session", { headers: cookieHeaders(token) }),
        await host.request(`${BASE_URL}/auth/get-session`, { headers: bearer(token) }),
      ];
    } finally {
      globalThis.Response = Original;
    }
    for (const res of answers) {
      expect(res.headers.get("set-auth-jwt")).toMatch(/^ey/);
      expect(exposed(res)).toEqual(["set-auth-jwt"]);
    }
    expect(streamed).toEqual([]);
  });

  it("is absent without a session", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const res = await t.request("GET", "/get-session");
    expect(await res.json()).toBeNull();
    expect(res.headers.get("set-auth-jwt")).toBeNull();
  });

  it("is absent with disableSettingJwtHeader, while /token still works", async () => {
    const t = createTestAuth({ plugins: [jwt({ disableSettingJwtHeader: true })] });
    const { token: session } = await t.signUp("ada@example.com");
    const res = await t.request("GET", "/get-session", { headers: bearer(session) });
    expect(((await res.json()) as { user: { email: string } }).user.email).toBe("ada@example.com");
    expect(res.headers.get("set-auth-jwt")).toBeNull();
    expect((await t.request("POST", "/token", { headers: bearer(session) })).status).toBe(200);
  });
});
