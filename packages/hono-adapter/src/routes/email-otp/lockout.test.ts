import { describe, expect, it } from "vitest";
import { createOtpTestAuth, wrongCode } from "./fixtures.ts";

const SIGN_IN = "/sign-in/email-otp";
const PASSWORD = "correct horse battery";

describe("lockout coupling", () => {
  it("5 wrong codes across fresh OTPs at sign-in lock the email (429 ACCOUNT_LOCKED even for the right code) until the lock ends", async () => {
    const t = createOtpTestAuth();
    await t.auth.api.createUser({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
    for (let i = 0; i < 5; i++) {
      const code = (await t.sendCode("ada@example.com", "sign-in"))!;
      const res = await t.post(SIGN_IN, { email: "ada@example.com", otp: wrongCode(code) });
      expect(res.status).toBe(400);
    }
    const code = (await t.sendCode("ada@example.com", "sign-in"))!;
    const locked = await t.post(SIGN_IN, { email: "ada@example.com", otp: code });
    expect(locked.status).toBe(429);
    expect((await locked.json()).code).toBe("ACCOUNT_LOCKED");
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await t.row("sign-in", "ada@example.com"))!.attemptCount).toBe(0);
    // The same counter as passwords.
    expect((await t.post("/sign-in/email", { email: "ada@example.com", password: PASSWORD })).status).toBe(429);
    t.clock.advance(15 * 60_000);
    const fresh = (await t.sendCode("ada@example.com", "sign-in"))!;
    expect((await t.post(SIGN_IN, { email: "ada@example.com", otp: fresh })).status).toBe(200);
  });

  it("5+ wrong checks do not lock the email", async () => {
    const t = createOtpTestAuth();
    for (let i = 0; i < 7; i++) {
      const code = (await t.sendCode("ada@example.com", "sign-in"))!;
      const res = await t.post("/email-otp/check-verification-otp", {
        email: "ada@example.com",
        purpose: "sign-in",
        otp: wrongCode(code),
      });
      expect(res.status).toBe(400);
    }
    const code = (await t.sendCode("ada@example.com", "sign-in"))!;
    expect((await t.post(SIGN_IN, { email: "ada@example.com", otp: code })).status).toBe(200);
  });

  for (const [path, purpose, extra] of [
    ["/email-otp/verify-email", "email-verification", {}],
    ["/email-otp/reset-password", "password-reset", { password: "a brand new password" }],
  ] as const) {
    it(`wrong codes at ${path} feed the same lockout`, async () => {
      const t = createOtpTestAuth();
      await t.signUp("ada@example.com");
      for (let i = 0; i < 5; i++) {
        const code = (await t.sendCode("ada@example.com", purpose))!;
        expect((await t.post(path, { email: "ada@example.com", otp: wrongCode(code), ...extra })).status).toBe(400);
      }
      const code = (await t.sendCode("ada@example.com", purpose))!;
      const res = await t.post(path, { email: "ada@example.com", otp: code, ...extra });
      expect(res.status).toBe(429);
      expect((await res.json()).code).toBe("ACCOUNT_LOCKED");
      expect(await t.row(purpose, "ada@example.com")).not.toBeNull();
    });
  }

  it("a successful OTP sign-in clears the failure count", async () => {
    const t = createOtpTestAuth();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4; i++) {
        const code = (await t.sendCode("ada@example.com", "sign-in"))!;
        expect((await t.post(SIGN_IN, { email: "ada@example.com", otp: wrongCode(code) })).status).toBe(400);
      }
      const code = (await t.sendCode("ada@example.com", "sign-in"))!;
      expect((await t.post(SIGN_IN, { email: "ada@example.com", otp: code })).status).toBe(200);
    }
  });
});
