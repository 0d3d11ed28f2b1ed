import { describe, expect, it } from "vitest";
import { bearer, createTestAuth, networkIp } from "../../../test/test-auth.ts";
import { countingHasher } from "../../../test/counting-hasher.ts";
import { passwordlessUser } from "../../../test/routes/account/test-fixtures.ts";

// Issue 33 item 4: /set-password costs one hash per user however many requests race, and has its own rule.

describe("POST /set-password under load", () => {
  it("100 parallel requests from one password-less account (100 addresses) start one hash", async () => {
    const hasher = countingHasher();
    const t = createTestAuth({ passwordHasher: hasher });
    const { token, userId } = await passwordlessUser(t, "otp@example.com");
    hasher.started = 0;
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        t.request("POST", "/set-password", {
          headers: bearer(token),
          body: { newPassword: `password number ${i}` },
          ip: networkIp(i),
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(99);
    expect(hasher.started).toBe(1);
    expect((await t.store.accounts.listByUser(userId)).filter((a) => a.providerId === "credential")).toHaveLength(1);
  });

  it("a failed attempt does not block the next one: after an error the following request hashes and sets", async () => {
    const hasher = countingHasher();
    const t = createTestAuth({ passwordHasher: hasher });
    const { token, userId } = await passwordlessUser(t, "otp@example.com");
    hasher.started = 0;
    hasher.failNextHash = true;
    const results = await Promise.all([
      t.request("POST", "/set-password", { headers: bearer(token), body: { newPassword: "first password try" } }),
      t.request("POST", "/set-password", { headers: bearer(token), body: { newPassword: "second password try" } }),
    ]);
    // The first to run fails in the engine; the one waiting behind it then hashes and sets the password.
    expect(results.map((r) => r.status).sort()).toEqual([200, 500]);
    expect(hasher.started).toBe(2);
    expect((await t.store.accounts.listByUser(userId)).filter((a) => a.providerId === "credential")).toHaveLength(1);
  });

  it("has a route rule of 10 requests per minute per IP (429 with Retry-After after that)", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await t.request("POST", "/set-password", {
        headers: bearer(token),
        body: { newPassword: "a new password" },
        ip: "203.0.113.9",
      });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([...Array(10).fill(409), 429]);
  });
});
