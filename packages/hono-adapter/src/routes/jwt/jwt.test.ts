import { describe, expect, it, vi } from "vitest";
import { Hono } from "hono";
import { cors } from "hono/cors";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { jwt } from "@latchkey/core";
import { BASE_URL, bearer, cookieHeaders, createTestAuth } from "../../../test/test-auth.ts";
import { decodeParts, issueToken, startHttpServer } from "../../../test/routes/jwt/test-fixtures.ts";

describe("POST /token", () => {
  it("exchanges a Bearer session for a JWT with the documented header and claims", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token: session, userId } = await t.signUp("ada@example.com");
    const res = await t.request("POST", "/token", { headers: bearer(session) });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { token } = (await res.json()) as { token: string };
    const { header, payload } = decodeParts(token);
    const [stored] = await t.store.jwks.list();
    expect(header).toEqual({ alg: "EdDSA", kid: stored!.id, typ: "JWT" });
    const sessionId = (await t.auth.api.getSession(session))!.session.id;
    const iat = Math.floor(t.clock.now() / 1000);
    expect(payload).toEqual({
      sub: userId,
      sid: sessionId,
      email: "ada@example.com",
      email_verified: false,
      iat,
      exp: iat + 900,
      iss: BASE_URL,
      aud: BASE_URL,
    });
  });

  it("answers GET too, and accepts the session cookie (POST with a trusted Origin)", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token: session } = await t.signUp("ada@example.com");
    const viaGet = await t.request("GET", "/token", { headers: bearer(session) });
    expect(viaGet.status).toBe(200);
    const viaCookie = await t.request("POST", "/token", { headers: cookieHeaders(session) });
    expect(viaCookie.status).toBe(200);
    expect(decodeParts(((await viaCookie.json()) as { token: string }).token).payload.email).toBe("ada@example.com");
  });

  it("CSRF: a cookie-authenticated POST from an untrusted origin gets no token", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token: session } = await t.signUp("ada@example.com");
    const res = await t.request("POST", "/token", { headers: cookieHeaders(session, "https://evil.example") });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe("INVALID_ORIGIN");
  });

  it("401 INVALID_CREDENTIALS without a session or with a signed-out one, and creates no key", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const anonymous = await t.request("POST", "/token");
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).code).toBe("INVALID_CREDENTIALS");
    const { token: session } = await t.signUp("ada@example.com");
    await t.request("POST", "/sign-out", { headers: bearer(session) });
    const after = await t.request("GET", "/token", { headers: bearer(session) });
    expect(after.status).toBe(401);
    expect(await t.store.jwks.list()).toEqual([]);
  });

  it("uses expiresIn, issuer and audience options", async () => {
    const t = createTestAuth({
      plugins: [jwt({ expiresIn: "5m", issuer: "https://issuer.example", audience: ["api-a", "api-b"] })],
    });
    const { token } = await issueToken(t);
    const { payload } = decodeParts(token);
    expect(payload.exp).toBe((payload.iat as number) + 300);
    expect(payload.iss).toBe("https://issuer.example");
    expect(payload.aud).toEqual(["api-a", "api-b"]);
    expect((await t.auth.api.verifyJwt(token)).sub).toBe(payload.sub);
  });

  it("payloadBuilder adds claims and may drop email, but cannot override sub, sid, iat, exp, iss or aud", async () => {
    const t = createTestAuth({
      plugins: [
        jwt({
          payloadBuilder: ({ user, session }) => ({
            role: "admin",
            uid: user.id,
            session_ua: session.userAgent,
            email: undefined,
            sub: "someone-else",
            sid: "x",
            iat: 1,
            exp: 9_999_999_999,
            iss: "https://evil.example",
            aud: "evil",
          }),
        }),
      ],
    });
    const { token, userId } = await issueToken(t);
    const { payload } = decodeParts(token);
    expect(payload.role).toBe("admin");
    expect(payload.uid).toBe(userId);
    expect("email" in payload).toBe(false);
    expect(payload.sub).toBe(userId);
    expect(payload.sid).not.toBe("x");
    expect(payload.exp).toBe((payload.iat as number) + 900);
    expect([payload.iss, payload.aud]).toEqual([BASE_URL, BASE_URL]);
    expect((await t.auth.api.verifyJwt(token)).role).toBe("admin");
  });

  it("a payloadBuilder that returns no object is a 500 on /token; get-session still answers without the header", async () => {
    const t = createTestAuth({ plugins: [jwt({ payloadBuilder: () => "role=admin" as never })] });
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { token: session } = await t.signUp("ada@example.com");
    const res = await t.request("POST", "/token", { headers: bearer(session) });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      code: "INTERNAL_ERROR",
      message: expect.stringContaining("jwt.payloadBuilder"),
    });
    const got = await t.request("GET", "/get-session", { headers: bearer(session) });
    expect(got.status).toBe(200);
    expect(got.headers.get("set-auth-jwt")).toBeNull();
    errors.mockRestore();
  });

  it("stays valid after sign-out and session revocation until it expires (JWTs are stateless)", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const { token, session, userId } = await issueToken(t);
    await t.request("POST", "/sign-out", { headers: bearer(session) });
    await t.auth.api.revokeSessions({ userId });
    expect((await t.auth.api.verifyJwt(token)).sub).toBe(userId);
    t.clock.advance(15 * 60_000 + 1000);
    await expect(t.auth.api.verifyJwt(token)).rejects.toMatchObject({ code: "INVALID_JWT" });
  });
});

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

describe("registration", () => {
  it("without jwt() the paths answer 404 and get-session has no header", async () => {
    const t = createTestAuth();
    const { token: session } = await t.signUp("ada@example.com");
    expect((await t.request("GET", "/jwks")).status).toBe(404);
    expect((await t.request("POST", "/token", { headers: bearer(session) })).status).toBe(404);
    expect(
      (await t.request("GET", "/get-session", { headers: bearer(session) })).headers.get("set-auth-jwt"),
    ).toBeNull();
    // @ts-expect-error: jwt() is not installed, so auth.api has no verifyJwt (JavaScript callers get NOT_FOUND).
    await expect(t.auth.api.verifyJwt("x.y.z")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("jwksPath and tokenPath move the endpoints", async () => {
    const t = createTestAuth({ plugins: [jwt({ jwksPath: "/.well-known/jwks.json", tokenPath: "/jwt/issue" })] });
    const { token: session } = await t.signUp("ada@example.com");
    expect((await t.request("GET", "/jwks")).status).toBe(404);
    expect((await t.request("POST", "/token", { headers: bearer(session) })).status).toBe(404);
    const res = await t.request("POST", "/jwt/issue", { headers: bearer(session) });
    expect(res.status).toBe(200);
    const { token } = (await res.json()) as { token: string };
    const jwks = (await (await t.request("GET", "/.well-known/jwks.json")).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k) => k.kid)).toEqual([decodeParts(token).header.kid]);
  });

  it("documents both endpoints in OpenAPI, with the stateless warning on /token", async () => {
    const t = createTestAuth({ plugins: [jwt()] });
    const doc = (await (await t.request("GET", "/openapi.json")).json()) as {
      paths: Record<string, Record<string, { description: string }>>;
    };
    expect(Object.keys(doc.paths["/token"]!).sort()).toEqual(["get", "post"]);
    expect(doc.paths["/token"]!.post!.description).toMatch(/stateless.*sign(ing)? out/is);
    expect(doc.paths["/jwks"]!.get).toBeDefined();
  });
});
