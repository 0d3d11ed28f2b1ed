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
    // Codes have a lockout of their own (issue 50 item 1): the password still works.
    expect((await t.post("/sign-in/email", { email: "ada@example.com", password: PASSWORD })).status).toBe(200);
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
    it(`wrong codes at ${path} feed the codes' lockout`, async () => {
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

// Issue 50 item 1: a proof of the mailbox is not blocked by a lock that wrong passwords earned, and a completed
// reset clears that lock. Item 5: wrong codes have a daily ceiling across lock cycles.
describe("mailbox proofs and the password lockout", () => {
  async function lockedByPasswords(t: ReturnType<typeof createOtpTestAuth>) {
    for (let i = 0; i < 6; i++)
      await t.post("/sign-in/email", { email: "ada@example.com", password: "a wrong password" });
    const locked = await t.post("/sign-in/email", { email: "ada@example.com", password: PASSWORD });
    expect(locked.status).toBe(429);
    expect((await locked.json()).code).toBe("ACCOUNT_LOCKED");
  }

  it("a delivered sign-in, verification or reset code works while wrong passwords hold the account locked", async () => {
    const t = createOtpTestAuth();
    await t.signUp("ada@example.com", PASSWORD);
    await lockedByPasswords(t);
    const signIn = (await t.sendCode("ada@example.com", "sign-in"))!;
    expect((await t.post(SIGN_IN, { email: "ada@example.com", otp: signIn })).status).toBe(200);
    const verify = (await t.sendCode("ada@example.com", "email-verification"))!;
    expect((await t.post("/email-otp/verify-email", { email: "ada@example.com", otp: verify })).status).toBe(200);
    const reset = (await t.sendCode("ada@example.com", "password-reset"))!;
    const body = { email: "ada@example.com", otp: reset, password: "a brand new password" };
    expect((await t.post("/email-otp/reset-password", body)).status).toBe(200);
    // The completed reset cleared the lock: the new password works at once.
    const after = await t.post("/sign-in/email", { email: "ada@example.com", password: "a brand new password" });
    expect(after.status).toBe(200);
  });

  it("the verification link works while the account is locked, and a reset by link clears the lock", async () => {
    const t = createOtpTestAuth();
    await t.signUp("ada@example.com", PASSWORD);
    await t.post("/send-verification-email", { email: "ada@example.com" });
    const link = t.auth.core.getOtp("ada@example.com")!;
    await lockedByPasswords(t);
    expect((await t.post("/verify-email", { email: "ada@example.com", token: link })).status).toBe(200);
    await t.post("/request-password-reset", { email: "ada@example.com" });
    const token = t.auth.core.getOtp("ada@example.com")!;
    expect((await t.post("/reset-password", { token, newPassword: "a brand new password" })).status).toBe(200);
    const after = await t.post("/sign-in/email", { email: "ada@example.com", password: "a brand new password" });
    expect(after.status).toBe(200);
  });

  it("wrong codes stop at lockout.codeFailuresPerDay (20) per account across lock cycles, until the day ends", async () => {
    const t = createOtpTestAuth();
    await t.signUp("ada@example.com", PASSWORD);
    let wrong = 0;
    // Four lock cycles of five wrong codes: each lock ends after 15 minutes, the day's count stays.
    for (let cycle = 0; cycle < 4; cycle++) {
      for (let i = 0; i < 5; i++) {
        const code = (await t.sendCode("ada@example.com", "sign-in"))!;
        const res = await t.post(SIGN_IN, { email: "ada@example.com", otp: wrongCode(code) });
        expect(res.status).toBe(400);
        wrong++;
      }
      t.clock.advance(15 * 60_000);
    }
    expect(wrong).toBe(20);
    const code = (await t.sendCode("ada@example.com", "sign-in"))!;
    const capped = await t.post(SIGN_IN, { email: "ada@example.com", otp: code });
    expect(capped.status).toBe(429);
    expect((await capped.json()).code).toBe("ACCOUNT_LOCKED");
    // The password is not part of it.
    expect((await t.post("/sign-in/email", { email: "ada@example.com", password: PASSWORD })).status).toBe(200);
    t.clock.advance(24 * 3_600_000);
    const fresh = (await t.sendCode("ada@example.com", "sign-in"))!;
    expect((await t.post(SIGN_IN, { email: "ada@example.com", otp: fresh })).status).toBe(200);
  });
});
