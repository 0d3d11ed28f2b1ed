import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { PASSWORD, passwordlessUser, signIn } from "../../../test/routes/account/test-fixtures.ts";

describe("POST /set-password", () => {
  it("adds a password to a passwordless account, revokes other sessions and keeps this one", async () => {
    const t = createTestAuth();
    const { token, userId } = await passwordlessUser(t, "otp@example.com");
    const other = await t.auth.core.ctx.sessions.create((await t.store.users.findById(userId))!, {
      ip: null,
      userAgent: null,
    });
    const res = await t.request("POST", "/set-password", {
      headers: bearer(token),
      body: { newPassword: "my first password" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    const credential = (await t.store.accounts.listByUser(userId)).find((a) => a.providerId === "credential");
    expect(credential!.passwordHash).toMatch(/^\$argon2id\$/);
    expect(credential!.passwordHash).not.toContain("my first password");
    expect(await t.store.sessions.findByTokenHash(hashSecret(other.credentials.token))).toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(token))).not.toBeNull();
    expect((await signIn(t, { email: "otp@example.com", password: "my first password" })).status).toBe(200);
  });

  it("answers 409 PASSWORD_ALREADY_SET when a password exists and leaves it unchanged", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com");
    const before = (await t.store.accounts.listByUser(userId))[0]!.passwordHash;
    const res = await t.request("POST", "/set-password", {
      headers: bearer(token),
      body: { newPassword: "an attacker's password" },
    });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe("PASSWORD_ALREADY_SET");
    expect((await t.store.accounts.listByUser(userId))[0]!.passwordHash).toBe(before);
  });

  it("10 parallel set-password calls: exactly one sets it, the others get 409", async () => {
    const t = createTestAuth({ rateLimit: { enabled: false } });
    const { token, userId } = await passwordlessUser(t, "otp@example.com");
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.request("POST", "/set-password", { headers: bearer(token), body: { newPassword: `password number ${i}` } }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    expect((await t.store.accounts.listByUser(userId)).filter((a) => a.providerId === "credential")).toHaveLength(1);
  });

  it("needs a session and a valid length", async () => {
    const t = createTestAuth();
    const { token } = await passwordlessUser(t, "otp@example.com");
    expect((await t.request("POST", "/set-password", { body: { newPassword: "long enough pw" } })).status).toBe(401);
    const short = await t.request("POST", "/set-password", { headers: bearer(token), body: { newPassword: "short" } });
    expect((await short.json()).code).toBe("PASSWORD_TOO_SHORT");
    const missing = await t.request("POST", "/set-password", { headers: bearer(token), body: {} });
    expect((await missing.json()).code).toBe("INVALID_REQUEST");
  });
});

describe("POST /verify-password", () => {
  it("answers {valid: true} for the right password and 401 INVALID_PASSWORD for a wrong one", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const ok = await t.request("POST", "/verify-password", { headers: bearer(token), body: { password: PASSWORD } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ valid: true });
    const wrong = await t.request("POST", "/verify-password", {
      headers: bearer(token),
      body: { password: "not my password" },
    });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe("INVALID_PASSWORD");
    expect((await t.request("POST", "/verify-password", { body: { password: PASSWORD } })).status).toBe(401);
  });

  it("feeds the sign-in lockout: 5 wrong guesses lock verify-password and sign-in alike (password oracle brute force)", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    for (let i = 0; i < 5; i++) {
      const res = await t.request("POST", "/verify-password", {
        headers: bearer(token),
        body: { password: `guess number ${i}` },
        ip: `203.0.113.${i}`,
      });
      expect(res.status).toBe(401);
    }
    const locked = await t.request("POST", "/verify-password", {
      headers: bearer(token),
      body: { password: PASSWORD },
      ip: "203.0.113.50",
    });
    expect(locked.status).toBe(429);
    expect((await locked.json()).code).toBe("ACCOUNT_LOCKED");
    expect((await signIn(t, { email: "ada@example.com" })).status).toBe(429);
    t.clock.advance(15 * 60_000);
    expect(
      (await t.request("POST", "/verify-password", { headers: bearer(token), body: { password: PASSWORD } })).status,
    ).toBe(200);
  });
});
