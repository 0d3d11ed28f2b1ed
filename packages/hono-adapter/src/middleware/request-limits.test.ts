import { describe, expect, it } from "vitest";
import { createTestAuth } from "../../test/test-auth.ts";

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
