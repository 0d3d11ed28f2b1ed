import { describe, expect, it } from "vitest";
import { bearer, BASE_URL, cookieHeaders, createTestAuth } from "../../test/test-auth.ts";

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
