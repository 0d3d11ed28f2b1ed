import { describe, expect, it, vi } from "vitest";
import { jwt } from "@latchkey/core";
import { BASE_URL, bearer, cookieHeaders, createTestAuth } from "../../../test/test-auth.ts";
import { decodeParts, issueToken } from "../../../test/routes/jwt/test-fixtures.ts";

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
