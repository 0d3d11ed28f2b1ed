import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { createOtpTestAuth, storedOtpHash, wrongCode } from "./fixtures.ts";

const CHECK = "/email-otp/check-verification-otp";

describe("OTP row: none -> issued", () => {
  it("stores only a keyed hash (HMAC-SHA-256 under a key derived from the secret) of a uniform 6-digit code with attemptCount 0 and a 5-minute expiry, and emits OtpRequested + OtpGenerated", async () => {
    const t = createOtpTestAuth();
    await t.signUp("ada@example.com");
    const requested: unknown[] = [];
    t.auth.events.on("OtpRequested", (e) => void requested.push(e));
    const res = await t.post("/email-otp/send-verification-otp", {
      email: " Ada@Example.com ",
      purpose: "email-verification",
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    const code = t.auth.getOtp("ada@example.com")!;
    expect(code).toMatch(/^[0-9]{6}$/);
    const row = await t.row("email-verification", "ada@example.com");
    expect(row).not.toBeNull();
    expect(row!.valueHash).toBe(storedOtpHash("otp:email-verification:ada@example.com", code));
    // A database reader cannot test candidates: the plain SHA-256 of the code is not what is stored.
    expect(row!.valueHash).not.toBe(hashSecret(code));
    expect(row!.valueHash).not.toContain(code);
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row!.attemptCount).toBe(0);
    expect(row!.expiresAt.getTime()).toBe(t.clock.now() + 5 * 60_000);
    expect(requested).toEqual([
      expect.objectContaining({ type: "OtpRequested", identifier: "ada@example.com", purpose: "email-verification" }),
    ]);
    expect(t.generated).toEqual([{ identifier: "ada@example.com", purpose: "email-verification", plain: code }]);
    await t.settle();
    const mail = t.emails.last("ada@example.com")!;
    expect(mail.text).toContain(code);
    expect(mail.text).toContain("verify your email address");
    expect(mail.template).toBe("otp-email-verification");
  });

  it("each send rotates: the earlier code is gone from the store and no longer accepted", async () => {
    const t = createOtpTestAuth();
    await t.signUp("ada@example.com");
    const first = (await t.sendCode("ada@example.com", "email-verification"))!;
    const second = (await t.sendCode("ada@example.com", "email-verification"))!;
    const identifier = "otp:email-verification:ada@example.com";
    expect(await t.store.verifications.findByValueHash(storedOtpHash(identifier, first))).toBeNull();
    expect((await t.row("email-verification", "ada@example.com"))!.valueHash).toBe(storedOtpHash(identifier, second));
    if (first !== second) {
      const old = await t.post(CHECK, { email: "ada@example.com", purpose: "email-verification", otp: first });
      expect(old.status).toBe(400);
      expect((await old.json()).code).toBe("INVALID_OTP");
    }
    const ok = await t.post(CHECK, { email: "ada@example.com", purpose: "email-verification", otp: second });
    expect(ok.status).toBe(200);
  });
});

describe("OTP row: issued -> consumed / checked", () => {
  it("a correct code at a consume endpoint deletes the row, emits OtpVerified, and cannot be replayed", async () => {
    const t = createOtpTestAuth();
    const { userId } = await t.signUp("ada@example.com");
    const verified: unknown[] = [];
    t.auth.events.on("OtpVerified", (e) => void verified.push(e));
    const code = (await t.sendCode("ada@example.com", "email-verification"))!;
    const res = await t.post("/email-otp/verify-email", { email: "ada@example.com", otp: code });
    expect(res.status).toBe(200);
    expect((await res.json()).user).toMatchObject({ id: userId, email: "ada@example.com", emailVerified: true });
    expect(await t.row("email-verification", "ada@example.com")).toBeNull();
    expect((await t.store.users.findById(userId))!.emailVerified).toBe(true);
    expect(verified).toEqual([
      expect.objectContaining({ identifier: "ada@example.com", purpose: "email-verification", userId }),
    ]);
    const replay = await t.post("/email-otp/verify-email", { email: "ada@example.com", otp: code });
    expect(replay.status).toBe(400);
    expect((await replay.json()).code).toBe("INVALID_OTP");
  });

  it("check with the correct code answers {success: true} and leaves the row exactly as it was", async () => {
    const t = createOtpTestAuth();
    const code = (await t.sendCode("new@example.com", "sign-in"))!;
    const before = await t.row("sign-in", "new@example.com");
    for (let i = 0; i < 3; i++) {
      const res = await t.post(CHECK, { email: "new@example.com", purpose: "sign-in", otp: code });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ success: true });
    }
    expect(await t.row("sign-in", "new@example.com")).toEqual(before);
    const signIn = await t.post("/sign-in/email-otp", { email: "new@example.com", otp: code });
    expect(signIn.status).toBe(200);
  });
});

describe("OTP row: wrong codes", () => {
  for (const endpoint of ["check", "consume"] as const) {
    it(`a wrong code at ${endpoint} increments attemptCount and emits OtpVerifyFailed; the one reaching maxAttempts destroys the row (403 TOO_MANY_ATTEMPTS)`, async () => {
      const t = createOtpTestAuth();
      await t.signUp("ada@example.com");
      const failed: Array<{ attemptCount: number; purpose: string; identifier: string }> = [];
      t.auth.events.on("OtpVerifyFailed", (e) => void failed.push(e));
      const code = (await t.sendCode("ada@example.com", "email-verification"))!;
      const attempt = () =>
        endpoint === "check"
          ? t.post(CHECK, { email: "ada@example.com", purpose: "email-verification", otp: wrongCode(code) })
          : t.post("/email-otp/verify-email", { email: "ada@example.com", otp: wrongCode(code) });
      for (const expected of [1, 2]) {
        const res = await attempt();
        expect(res.status).toBe(400);
        expect((await res.json()).code).toBe("INVALID_OTP");
        expect((await t.row("email-verification", "ada@example.com"))!.attemptCount).toBe(expected);
      }
      const last = await attempt();
      expect(last.status).toBe(403);
      expect((await last.json()).code).toBe("TOO_MANY_ATTEMPTS");
      expect(await t.row("email-verification", "ada@example.com")).toBeNull();
      expect(failed.map((f) => f.attemptCount)).toEqual([1, 2, 3]);
      expect(failed.every((f) => f.identifier === "ada@example.com" && f.purpose === "email-verification")).toBe(true);
      // A new OTP must be requested: the right code of the destroyed row no longer works.
      const right = await t.post("/email-otp/verify-email", { email: "ada@example.com", otp: code });
      expect((await right.json()).code).toBe("INVALID_OTP");
      expect((await t.store.users.findByEmail("ada@example.com"))!.emailVerified).toBe(false);
    });
  }

  it("maxAttempts is configurable", async () => {
    const t = createOtpTestAuth({ maxAttempts: 1 });
    const code = (await t.sendCode("x@example.com", "sign-in"))!;
    const res = await t.post(CHECK, { email: "x@example.com", purpose: "sign-in", otp: wrongCode(code) });
    expect(res.status).toBe(403);
    expect(await t.row("sign-in", "x@example.com")).toBeNull();
  });

  it("a code for an email that never got one is INVALID_OTP", async () => {
    const t = createOtpTestAuth();
    const res = await t.post(CHECK, { email: "nobody@example.com", purpose: "sign-in", otp: "123456" });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("INVALID_OTP");
  });
});

describe("OTP row: expiry", () => {
  it("works until just before expiresIn; at expiry it is 400 OTP_EXPIRED and the row is deleted", async () => {
    const t = createOtpTestAuth({ expiresIn: "2m" });
    const code = (await t.sendCode("ada@example.com", "sign-in"))!;
    t.clock.advance(2 * 60_000 - 1);
    expect((await t.post(CHECK, { email: "ada@example.com", purpose: "sign-in", otp: code })).status).toBe(200);
    t.clock.advance(1);
    const res = await t.post("/sign-in/email-otp", { email: "ada@example.com", otp: code });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("OTP_EXPIRED");
    expect(await t.row("sign-in", "ada@example.com")).toBeNull();
    expect(await t.store.users.findByEmail("ada@example.com")).toBeNull();
    const again = await t.post("/sign-in/email-otp", { email: "ada@example.com", otp: code });
    expect((await again.json()).code).toBe("INVALID_OTP");
  });

  it("an expired code is OTP_EXPIRED at check too (wrong or right), never 5xx", async () => {
    const t = createOtpTestAuth();
    const code = (await t.sendCode("ada@example.com", "sign-in"))!;
    t.clock.advance(5 * 60_000 + 1);
    const res = await t.post(CHECK, { email: "ada@example.com", purpose: "sign-in", otp: wrongCode(code) });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("OTP_EXPIRED");
  });
});

describe("purpose binding", () => {
  it("a sign-in code cannot reset a password or verify an email, and is still usable for sign-in afterwards", async () => {
    const t = createOtpTestAuth();
    await t.signUp("ada@example.com");
    const code = (await t.sendCode("ada@example.com", "sign-in"))!;
    const reset = await t.post("/email-otp/reset-password", {
      email: "ada@example.com",
      otp: code,
      password: "a brand new password",
    });
    expect(reset.status).toBe(400);
    expect((await reset.json()).code).toBe("INVALID_OTP");
    const verify = await t.post("/email-otp/verify-email", { email: "ada@example.com", otp: code });
    expect((await verify.json()).code).toBe("INVALID_OTP");
    const check = await t.post(CHECK, { email: "ada@example.com", purpose: "password-reset", otp: code });
    expect((await check.json()).code).toBe("INVALID_OTP");
    expect((await t.row("sign-in", "ada@example.com"))!.attemptCount).toBe(0);
    expect((await t.post("/sign-in/email-otp", { email: "ada@example.com", otp: code })).status).toBe(200);
  });

  it("a code is bound to its email", async () => {
    const t = createOtpTestAuth();
    const code = (await t.sendCode("ada@example.com", "sign-in"))!;
    const res = await t.post("/sign-in/email-otp", { email: "eve@example.com", otp: code });
    expect((await res.json()).code).toBe("INVALID_OTP");
    expect(await t.store.users.findByEmail("eve@example.com")).toBeNull();
  });
});
