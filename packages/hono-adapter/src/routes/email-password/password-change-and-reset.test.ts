import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";

const PASSWORD = "correct horse battery";

describe("change-password", () => {
  it("needs a session, refuses a wrong current password and can revoke other sessions", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const other = (
      await (
        await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: PASSWORD } })
      ).json()
    ).credentials.token;
    const anon = await t.request("POST", "/change-password", {
      body: { currentPassword: PASSWORD, newPassword: "a new password" },
    });
    expect(anon.status).toBe(401);
    expect((await anon.json()).code).toBe("INVALID_CREDENTIALS");
    const wrong = await t.request("POST", "/change-password", {
      headers: bearer(token),
      body: { currentPassword: "not it at all", newPassword: "a new password" },
    });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe("INVALID_PASSWORD");
    const ok = await t.request("POST", "/change-password", {
      headers: bearer(token),
      body: { currentPassword: PASSWORD, newPassword: "a new password", revokeOtherSessions: true },
    });
    expect(ok.status).toBe(200);
    expect(await t.store.sessions.findByTokenHash(hashSecret(other))).toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(token))).not.toBeNull();
    const signIn = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "a new password" },
    });
    expect(signIn.status).toBe(200);
  });
});

describe("password reset by emailed token", () => {
  it("answers the same for known and unknown emails and emails only the known one", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com");
    const known = await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
    const unknown = await t.request("POST", "/request-password-reset", {
      body: { email: "nobody@example.com" },
      ip: "192.0.2.50",
    });
    expect(known.status).toBe(200);
    expect(await known.json()).toEqual(await unknown.json());
    await t.settle();
    expect(t.emails.sent.map((m) => m.to)).toEqual(["ada@example.com"]);
    expect(t.emails.last()!.text).toContain("https://app.example/reset-password?token=");
  });

  it("resets once with the token, revokes every session, and refuses reuse and expiry", async () => {
    const t = createTestAuth();
    const { token: session } = await t.signUp("ada@example.com");
    await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
    const resetToken = t.auth.getOtp("ada@example.com")!;
    const ok = await t.request("POST", "/reset-password", {
      body: { token: resetToken, newPassword: "brand new password" },
    });
    expect(ok.status).toBe(200);
    expect(await t.store.sessions.findByTokenHash(hashSecret(session))).toBeNull();
    const again = await t.request("POST", "/reset-password", {
      body: { token: resetToken, newPassword: "another password" },
    });
    expect(again.status).toBe(400);
    expect((await again.json()).code).toBe("INVALID_TOKEN");
    await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" }, ip: "192.0.2.77" });
    const late = t.auth.getOtp("ada@example.com")!;
    t.clock.advance(61 * 60_000);
    const expired = await t.request("POST", "/reset-password", {
      body: { token: late, newPassword: "another password" },
    });
    expect((await expired.json()).code).toBe("INVALID_TOKEN");
    expect(
      (
        await t.request("POST", "/sign-in/email", {
          body: { email: "ada@example.com", password: "brand new password" },
        })
      ).status,
    ).toBe(200);
  });

  it("20 parallel resets with one token: exactly one succeeds", async () => {
    const t = createTestAuth({ rateLimit: { enabled: false } });
    await t.signUp("ada@example.com");
    await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
    const token = t.auth.getOtp("ada@example.com")!;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.request("POST", "/reset-password", { body: { token, newPassword: `password number ${i}` } }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it("refuses untrusted redirect targets (open redirect in emailed links)", async () => {
    const t = createTestAuth({ trustedOrigins: ["https://trusted.example"] });
    await t.signUp("ada@example.com");
    for (const [i, redirectTo] of [
      "//evil.example/x",
      "/\\evil.example",
      "https://trusted.example.evil.com/x",
      "javascript:alert(1)",
    ].entries()) {
      const res = await t.request("POST", "/request-password-reset", {
        body: { email: "ada@example.com", redirectTo },
        ip: `192.0.2.${100 + i}`,
      });
      expect(res.status, redirectTo).toBe(400);
      expect((await res.json()).code).toBe("INVALID_CALLBACK_URL");
    }
    const ok = await t.request("POST", "/request-password-reset", {
      body: { email: "ada@example.com", redirectTo: "https://trusted.example/reset" },
    });
    expect(ok.status).toBe(200);
  });
});
