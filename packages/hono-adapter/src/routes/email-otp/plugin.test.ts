import { describe, expect, it } from "vitest";
import { AuthConfigError, emailOtp, signedIn } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";
import { createOtpTestAuth, wrongCode } from "./fixtures.ts";

const CHECK = "/email-otp/check-verification-otp";

describe("plugin installation", () => {
  it("without emailOtp() every OTP path answers 404", async () => {
    const t = createTestAuth();
    for (const path of [
      "/email-otp/send-verification-otp",
      "/sign-in/email-otp",
      "/email-otp/verify-email",
      "/email-otp/reset-password",
      "/email-otp/request-email-change",
    ]) {
      const res = await t.request("POST", path, { body: { email: "a@example.com", purpose: "sign-in" } });
      expect(res.status, path).toBe(404);
    }
    // @ts-expect-error: emailOtp() is not installed, so auth.api has no sendVerificationOtp (JavaScript callers get NOT_FOUND).
    await expect(t.auth.api.sendVerificationOtp({ email: "a@example.com", purpose: "sign-in" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("createAuth refuses codeLength outside 4..10 with AuthConfigError naming emailOtp.codeLength", () => {
    for (const codeLength of [3, 11, 4.5, 0, Number.NaN, "6" as unknown as number]) {
      let error: unknown;
      try {
        createTestAuth({ plugins: [emailOtp({ codeLength })] });
      } catch (e) {
        error = e;
      }
      expect(error, String(codeLength)).toBeInstanceOf(AuthConfigError);
      expect((error as AuthConfigError).field).toBe("emailOtp.codeLength");
      expect((error as AuthConfigError).message).toBe("emailOtp.codeLength must be 4..10");
    }
    expect(() => createTestAuth({ plugins: [emailOtp({ codeLength: 4 })] })).not.toThrow();
    expect(() => createTestAuth({ plugins: [emailOtp({ codeLength: 10 })] })).not.toThrow();
  });

  it("publishes every endpoint in the OpenAPI document", async () => {
    const t = createOtpTestAuth({ emailChange: { enabled: true } });
    const doc = await (await t.request("GET", "/openapi.json")).json();
    for (const path of [
      "/email-otp/send-verification-otp",
      "/email-otp/check-verification-otp",
      "/sign-in/email-otp",
      "/email-otp/verify-email",
      "/email-otp/request-password-reset",
      "/email-otp/reset-password",
      "/email-otp/request-email-change",
      "/email-otp/change-email",
    ]) {
      expect(doc.paths[path]?.post, path).toBeDefined();
    }
  });
});

describe("auth.api", () => {
  it("sends, checks, signs in, verifies and resets without HTTP", async () => {
    const t = createOtpTestAuth();
    expect(await t.auth.api.sendVerificationOtp({ email: "ada@example.com", purpose: "sign-in" })).toEqual({
      success: true,
    });
    const code = t.auth.getOtp("ada@example.com")!;
    expect(await t.auth.api.checkVerificationOtp({ email: "ada@example.com", purpose: "sign-in", otp: code })).toEqual({
      success: true,
    });
    const signedInAs = signedIn(await t.auth.api.signInEmailOtp({ email: "ada@example.com", otp: code, name: "Ada" }));
    expect(signedInAs.user).toMatchObject({ email: "ada@example.com", emailVerified: true, name: "Ada" });
    expect(signedInAs.cookie.value).toBe(signedInAs.credentials.token);
    await t.auth.api.sendVerificationOtp({ email: "ada@example.com", purpose: "email-verification" });
    expect(
      (await t.auth.api.verifyEmailOtp({ email: "ada@example.com", otp: t.auth.getOtp("ada@example.com")! })).user.id,
    ).toBe(signedInAs.user.id);
    await t.auth.api.requestPasswordResetEmailOtp({ email: "ada@example.com" });
    expect(
      await t.auth.api.resetPasswordEmailOtp({
        email: "ada@example.com",
        otp: t.auth.getOtp("ada@example.com")!,
        password: "a fresh password",
      }),
    ).toEqual({ success: true });
    expect(await t.auth.api.getSession(signedInAs.credentials.token)).toBeNull();
    await expect(t.auth.api.signInEmailOtp({ email: "ada@example.com", otp: "12345" })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    await expect(
      t.auth.api.sendVerificationOtp({ email: "ada@example.com", purpose: "email-change" as never }),
    ).rejects.toMatchObject({ code: "INVALID_REQUEST" });
  });
});

describe("events", () => {
  it("no plaintext code appears in any event but OtpGenerated, nor in the store", async () => {
    const t = createOtpTestAuth({ emailChange: { enabled: true } });
    const others: string[] = [];
    t.auth.events.onAny((e) => {
      if (e.type !== "OtpGenerated") others.push(JSON.stringify(e));
    });
    const { token } = await t.signUp("ada@example.com");
    const codes: string[] = [];
    const keep = (c: string | undefined) => (codes.push(c!), c!);
    await t.post(CHECK, {
      email: "ada@example.com",
      purpose: "sign-in",
      otp: wrongCode(keep(await t.sendCode("ada@example.com", "sign-in"))),
    });
    await t.post("/sign-in/email-otp", { email: "ada@example.com", otp: codes[0] });
    await t.post("/email-otp/verify-email", {
      email: "ada@example.com",
      otp: keep(await t.sendCode("ada@example.com", "email-verification")),
    });
    await t.post("/email-otp/request-password-reset", { email: "ada@example.com" });
    await t.post("/email-otp/reset-password", {
      email: "ada@example.com",
      otp: keep(t.auth.getOtp("ada@example.com")),
      password: "a new password!",
    });
    const session = await t.post("/sign-in/email-otp", {
      email: "ada@example.com",
      otp: keep(await t.sendCode("ada@example.com", "sign-in")),
    });
    const auth = { authorization: `Bearer ${(await session.json()).credentials.token}` };
    await t.post("/email-otp/request-email-change", { newEmail: "ada@new.example" }, { headers: auth });
    await t.post(
      "/email-otp/change-email",
      { newEmail: "ada@new.example", otp: keep(t.auth.getOtp("ada@new.example")) },
      { headers: auth },
    );
    expect(token).toBeTruthy();
    expect(codes.every((c) => /^[0-9]{6}$/.test(c))).toBe(true);
    expect(others.some((e) => e.includes('"EmailChanged"'))).toBe(true);
    expect(others.some((e) => e.includes('"PasswordChanged"'))).toBe(true);
    for (const code of codes) {
      for (const e of others) expect(e).not.toContain(code);
    }
    expect(t.generated.map((g) => g.plain)).toEqual(expect.arrayContaining(codes));
  });
});
