import { describe, expect, it } from "vitest";
import { jwt } from "@latchkey/core";
import { createAuth } from "../create-auth.ts";
import { memoryStore } from "@latchkey/memory-store";
import { BASE_URL, createTestAuth, TEST_SECRET } from "../../test/test-auth.ts";

const SPA = "https://spa.example";
const preflight = (origin: string, method = "POST") => ({
  origin,
  "access-control-request-method": method,
  "access-control-request-headers": "content-type, authorization",
});

describe("CORS", () => {
  it("is off by default: a preflight gets no CORS headers", async () => {
    const t = createTestAuth({ trustedOrigins: [SPA] });
    const res = await t.request("OPTIONS", "/sign-in/email", { headers: preflight(SPA) });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers preflights with 204 on every auth path for trusted origins, with credentials", async () => {
    const t = createTestAuth({ trustedOrigins: [SPA], cors: true, plugins: [jwt()] });
    for (const path of ["/sign-in/email", "/sign-up/email", "/get-session", "/user", "/token", "/no-such-path"]) {
      const res = await t.request("OPTIONS", path, { headers: preflight(SPA, path === "/user" ? "PATCH" : "POST") });
      expect(res.status, path).toBe(204);
      expect(res.headers.get("access-control-allow-origin"), path).toBe(SPA);
      expect(res.headers.get("access-control-allow-credentials"), path).toBe("true");
      expect(res.headers.get("access-control-allow-methods")?.split(","), path).toEqual(
        expect.arrayContaining(["GET", "POST", "PATCH", "DELETE"]),
      );
      expect(res.headers.get("access-control-allow-headers"), path).toBe("content-type,authorization");
      expect(res.headers.get("access-control-max-age"), path).toBe("600");
      expect(res.headers.get("vary"), path).toContain("Origin");
    }
    // baseUrl's origin is always trusted.
    expect(
      (await t.request("OPTIONS", "/sign-in/email", { headers: preflight(BASE_URL) })).headers.get(
        "access-control-allow-origin",
      ),
    ).toBe(BASE_URL);
  });

  it("does not allow an untrusted origin (no Access-Control-Allow-Origin, and CSRF still refuses it)", async () => {
    const t = createTestAuth({ trustedOrigins: [SPA], cors: true });
    const pre = await t.request("OPTIONS", "/sign-in/email", { headers: preflight("https://evil.example") });
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    const { cookie } = await t.signUp("ada@example.com");
    const res = await t.request("POST", "/sign-out", {
      headers: { cookie: cookie.split(";")[0]!, origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a credentialed sign-in from the SPA origin sets the cookie and is readable; errors are readable too", async () => {
    const t = createTestAuth({ trustedOrigins: [SPA], cors: true, plugins: [jwt()] });
    const { userId } = await t.signUp("ada@example.com");
    const wrong = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "not the password" },
      headers: { origin: SPA },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("access-control-allow-origin")).toBe(SPA);
    expect(wrong.headers.get("access-control-allow-credentials")).toBe("true");
    expect((await wrong.json()).code).toBe("INVALID_CREDENTIALS");

    const res = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "correct horse battery" },
      headers: { origin: SPA },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(SPA);
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie).toMatch(/^__Host-latchkey\.session=/);
    // A browser page is served by the cookie: the answer carries no token for its scripts (review fix 17).
    const body = await res.json();
    expect(body).not.toHaveProperty("credentials");
    expect(body.user.id).toBe(userId);

    // The cookie-authenticated read exposes set-auth-jwt exactly once.
    const session = await t.request("GET", "/get-session", { headers: { cookie, origin: SPA } });
    expect(session.headers.get("access-control-allow-origin")).toBe(SPA);
    expect(session.headers.get("set-auth-jwt")).toMatch(/^ey/);
    expect(
      session.headers
        .get("access-control-expose-headers")!
        .split(",")
        .map((h) => h.trim())
        .filter((h) => h === "set-auth-jwt"),
    ).toHaveLength(1);
    // A cookie-authenticated write from the SPA passes CSRF (the origin is trusted).
    expect((await t.request("POST", "/sign-out", { headers: { cookie, origin: SPA } })).status).toBe(200);
  });

  it("cors.origins narrows the allowed origins; bad values fail at construction", async () => {
    const t = createTestAuth({
      trustedOrigins: [SPA, "https://other.example"],
      cors: { origins: ["https://other.example/app"], maxAge: 60, exposeHeaders: ["X-Request-Id"] },
    });
    expect(
      (await t.request("OPTIONS", "/sign-in/email", { headers: preflight(SPA) })).headers.get(
        "access-control-allow-origin",
      ),
    ).toBeNull();
    const ok = await t.request("OPTIONS", "/sign-in/email", { headers: preflight("https://other.example") });
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://other.example");
    expect(ok.headers.get("access-control-max-age")).toBe("60");
    expect(ok.headers.get("access-control-expose-headers")).toBe("set-auth-jwt,retry-after,x-request-id");
    const base = { secret: TEST_SECRET, baseUrl: BASE_URL, database: memoryStore() };
    expect(() => createAuth({ ...base, cors: { origins: ["not a url"] } })).toThrow(/cors\.origins\[0\]/);
    expect(() => createAuth({ ...base, cors: { maxAge: -1 } })).toThrow(/cors\.maxAge/);
  });

  it("cors takes true, false or an object: anything else (a string, a number, an array) is a config error", async () => {
    const base = { secret: TEST_SECRET, baseUrl: BASE_URL, database: memoryStore() };
    for (const value of ["false", "true", 0, 1, [], ["https://spa.example"]]) {
      expect(() => createAuth({ ...base, cors: value as unknown as boolean }), JSON.stringify(value)).toThrow(
        /^cors must be true, false or an object/,
      );
    }
    expect(() => createAuth({ ...base, cors: { origins: "https://spa.example" as unknown as string[] } })).toThrow(
      /cors\.origins must be an array of strings/,
    );
    expect(() => createAuth({ ...base, cors: { exposeHeaders: [1 as unknown as string] } })).toThrow(
      /cors\.exposeHeaders/,
    );
    // What was accepted stays accepted, and CORS stays off with false.
    const off = createTestAuth({ trustedOrigins: [SPA], cors: false });
    const res = await off.request("OPTIONS", "/sign-in/email", { headers: preflight(SPA) });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});
