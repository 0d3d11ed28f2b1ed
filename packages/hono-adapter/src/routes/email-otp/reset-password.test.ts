import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { createOtpTestAuth, wrongCode } from "./fixtures.ts";

const RESET = "/email-otp/reset-password";
const OLD = "correct horse battery";
const NEW = "a brand new password";

describe("password reset by OTP", () => {
  it("sets the password, revokes every session, marks the email verified and consumes the code", async () => {
    const t = createOtpTestAuth();
    const ada = await t.signUp("ada@example.com", OLD);
    const second = await t.post("/sign-in/email", { email: "ada@example.com", password: OLD });
    const secondToken = (await second.json()).credentials.token;
    const seen: Array<{ type: string; reason?: string; count?: number; method?: string }> = [];
    t.auth.events.onAny((e) => void seen.push(e as never));
    const req = await t.post("/email-otp/request-password-reset", { email: "ada@example.com" });
    expect(await req.json()).toEqual({ success: true });
    const code = t.auth.getOtp("ada@example.com")!;
    expect((await t.row("password-reset", "ada@example.com"))!.userId).toBe(ada.userId);
    const res = await t.post(RESET, { email: "ada@example.com", otp: code, password: NEW });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(await t.row("password-reset", "ada@example.com")).toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(ada.token))).toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(secondToken))).toBeNull();
    expect((await t.store.users.findById(ada.userId))!.emailVerified).toBe(true);
    const accounts = await t.store.accounts.listByUser(ada.userId);
    expect(accounts).toEqual([
      expect.objectContaining({ providerId: "credential", passwordHash: expect.stringMatching(/^\$argon2id\$/) }),
    ]);
    expect((await t.post("/sign-in/email", { email: "ada@example.com", password: OLD })).status).toBe(401);
    expect((await t.post("/sign-in/email", { email: "ada@example.com", password: NEW })).status).toBe(200);
    expect(seen).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "OtpVerified", purpose: "password-reset", userId: ada.userId }),
        expect.objectContaining({ type: "PasswordChanged", method: "reset-otp" }),
        expect.objectContaining({ type: "SessionRevoked", reason: "password-reset" }),
        expect.objectContaining({ type: "EmailVerified", userId: ada.userId }),
      ]),
    );
    const replay = await t.post(RESET, { email: "ada@example.com", otp: code, password: "yet another password" });
    expect((await replay.json()).code).toBe("INVALID_OTP");
  });

  it("creates the credential account when an OTP-only user had none", async () => {
    const t = createOtpTestAuth();
    const signIn = await t.post("/sign-in/email-otp", {
      email: "otp@example.com",
      otp: (await t.sendCode("otp@example.com", "sign-in"))!,
    });
    const userId = (await signIn.json()).user.id;
    const code = (await t.sendCode("otp@example.com", "password-reset"))!;
    expect((await t.post(RESET, { email: "otp@example.com", otp: code, password: NEW })).status).toBe(200);
    const providers = (await t.store.accounts.listByUser(userId)).map((a) => a.providerId).sort();
    expect(providers).toEqual(["EMAIL_OTP", "credential"]);
    expect(await t.countSessions(userId)).toBe(0);
    expect((await t.post("/sign-in/email", { email: "otp@example.com", password: NEW })).status).toBe(200);
  });

  it("a bad new password is refused before the code is looked at: the row keeps its attempts", async () => {
    const t = createOtpTestAuth();
    await t.signUp("ada@example.com", OLD);
    const code = (await t.sendCode("ada@example.com", "password-reset"))!;
    for (const [password, error] of [
      ["short", "PASSWORD_TOO_SHORT"],
      ["x".repeat(129), "PASSWORD_TOO_LONG"],
    ] as const) {
      const res = await t.post(RESET, { email: "ada@example.com", otp: wrongCode(code), password });
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe(error);
    }
    expect((await t.row("password-reset", "ada@example.com"))!.attemptCount).toBe(0);
    expect((await t.post("/sign-in/email", { email: "ada@example.com", password: OLD })).status).toBe(200);
  });

  it("an unknown email is INVALID_OTP and creates nothing", async () => {
    const t = createOtpTestAuth();
    const res = await t.post(RESET, { email: "nobody@example.com", otp: "123456", password: NEW });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("INVALID_OTP");
    expect(await t.store.users.findByEmail("nobody@example.com")).toBeNull();
  });

  it("20 parallel resets with the same code set the password exactly once", async () => {
    const t = createOtpTestAuth({}, { rateLimit: { enabled: false } });
    await t.signUp("ada@example.com", OLD);
    const code = (await t.sendCode("ada@example.com", "password-reset"))!;
    const passwords = Array.from({ length: 20 }, (_, i) => `racing password ${i}`);
    const results = await Promise.all(
      passwords.map((password) => t.post(RESET, { email: "ada@example.com", otp: code, password })),
    );
    const winners = results.flatMap((r, i) => (r.status === 200 ? [passwords[i]!] : []));
    expect(winners).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect((await r.json()).code).toBe("INVALID_OTP");
    }
    const user = (await t.store.users.findByEmail("ada@example.com"))!;
    expect(await t.store.accounts.listByUser(user.id)).toHaveLength(1);
    expect((await t.post("/sign-in/email", { email: "ada@example.com", password: winners[0]! })).status).toBe(200);
    const loser = passwords.find((p) => p !== winners[0])!;
    expect((await t.post("/sign-in/email", { email: "ada@example.com", password: loser })).status).toBe(401);
  });

  it("late duplicates of a used code do not lock the account (double-submit race, found by the 20-way reset on PostgreSQL)", async () => {
    const t = createOtpTestAuth({}, { rateLimit: { enabled: false } });
    await t.signUp("ada@example.com", OLD);
    const code = (await t.sendCode("ada@example.com", "password-reset"))!;
    expect(
      (await t.post(RESET, { email: "ada@example.com", otp: code, password: "the winning password" })).status,
    ).toBe(200);
    // Requests that arrive after the row is gone: the same right code, more times than the lockout allows.
    for (let i = 0; i < 6; i++) {
      const late = await t.post(RESET, { email: "ada@example.com", otp: code, password: `late password ${i}` });
      expect((await late.json()).code).toBe("INVALID_OTP");
    }
    expect(
      (await t.post("/sign-in/email", { email: "ada@example.com", password: "the winning password" })).status,
    ).toBe(200);
  });
});
