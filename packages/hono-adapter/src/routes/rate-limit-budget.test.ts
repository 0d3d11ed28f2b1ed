import { describe, expect, it } from "vitest";
import { createTestAuth } from "../../test/test-auth.ts";

// Runs on every store the HTTP suites use (memory, libSQL, PostgreSQL).

describe("per-IP budget and the 429 message", () => {
  it("requests the schema rejects spend no budget; the 429 says when to retry and matches Retry-After", async () => {
    const t = createTestAuth({ rateLimit: { rules: { "/sign-in/email": { window: "1m", max: 2 } } } });
    const ip = "203.0.113.77";
    for (let i = 0; i < 5; i++) {
      const res = await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com" }, ip });
      expect(res.status).toBe(400);
    }
    expect(
      (await t.request("POST", "/sign-in/email", { body: "x", ip, headers: { "content-type": "text/plain" } })).status,
    ).toBe(415);
    for (let i = 0; i < 2; i++) {
      expect(
        (
          await t.request("POST", "/sign-in/email", {
            body: { email: "ada@example.com", password: "wrong password!" },
            ip,
          })
        ).status,
      ).toBe(401);
    }
    const limited = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "wrong password!" },
      ip,
    });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    const body = await limited.json();
    expect(body.code).toBe("RATE_LIMITED");
    expect(body.message).toBe(`Too many requests from this address; try again in ${retryAfter} seconds`);
  });
});
