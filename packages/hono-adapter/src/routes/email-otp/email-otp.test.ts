import { describe, expect, it } from "vitest";
import { AuthConfigError, emailOtp, hashSecret } from "@latchkey/core";
import { createTestAuth } from "../../testing/test-auth.ts";
import { createOtpTestAuth, wrongCode } from "./fixtures.ts";

const CHECK = "/email-otp/check-verification-otp";

describe("OTP row: none -> issued", () => {
  it("stores only the SHA-256 of a uniform 6-digit code with attemptCount 0 and a 5-minute expiry, and emits OtpRequested + OtpGenerated", async () => {
    const t = createOtpTestAuth();
    await t.signUp("ada@example.com");
    const requested: unknown[] = [];
    t.auth.events.on("OtpRequested", (e) => void requested.push(e));
    const res = await t.post("/email-otp/send-verification-otp", { email: " Ada@Example.com ", purpose: "email-verification" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    const code = t.auth.getOtp("ada@example.com")!;
    expect(code).toMatch(/^[0-9]{6}$/);
    const row = await t.row("email-verification", "ada@example.com");
    expect(row).not.toBeNull();
    expect(row!.valueHash).toBe(hashSecret(code));
    expect(row!.valueHash).not.toContain(code);
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row!.attemptCount).toBe(0);
    expect(row!.expiresAt.getTime()).toBe(t.clock.now() + 5 * 60_000);
    expect(requested).toEqual([expect.objectContaining({ type: "OtpRequested", identifier: "ada@example.com", purpose: "email-verification" })]);
    expect(t.generated).toEqual([{ identifier: "ada@example.com", purpose: "email-verification", plain: code }]);
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
    expect(await t.store.verifications.findByValueHash(hashSecret(first))).toBeNull();
    expect((await t.row("email-verification", "ada@example.com"))!.valueHash).toBe(hashSecret(second));
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
    expect(verified).toEqual([expect.objectContaining({ identifier: "ada@example.com", purpose: "email-verification", userId })]);
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
      const attempt = () => endpoint === "check"
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
    const reset = await t.post("/email-otp/reset-password", { email: "ada@example.com", otp: code, password: "a brand new password" });
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

describe("malformed input", () => {
  const BAD_OTPS: unknown[] = ["12345a", "abcdef", "12345", "1234567", "", " 12345", "12 345", "١٢٣٤٥٦", "123456\n", 123456, null, { $gt: "" }, ["123456"], true];

  it("otp that is not exactly codeLength ASCII digits is 400 INVALID_REQUEST on every endpoint, never 5xx, and touches no row", async () => {
    const t = createOtpTestAuth();
    const code = (await t.sendCode("ada@example.com", "sign-in"))!;
    const before = await t.row("sign-in", "ada@example.com");
    const bodies = (otp: unknown): Array<[string, unknown]> => [
      [CHECK, { email: "ada@example.com", purpose: "sign-in", otp }],
      ["/sign-in/email-otp", { email: "ada@example.com", otp }],
      ["/email-otp/verify-email", { email: "ada@example.com", otp }],
      ["/email-otp/reset-password", { email: "ada@example.com", otp, password: "long enough pw" }],
    ];
    for (const otp of BAD_OTPS) {
      for (const [path, body] of bodies(otp)) {
        const res = await t.post(path, body);
        expect(res.status, `${path} ${JSON.stringify(otp)}`).toBe(400);
        expect((await res.json()).code).toBe("INVALID_REQUEST");
      }
    }
    expect(await t.row("sign-in", "ada@example.com")).toEqual(before);
    expect((await t.post("/sign-in/email-otp", { email: "ada@example.com", otp: code })).status).toBe(200);
  });

  it("unknown purposes, bad emails and missing fields are 400 with clear codes", async () => {
    const t = createOtpTestAuth();
    const cases: Array<[string, unknown, string]> = [
      ["/email-otp/send-verification-otp", { email: "a@example.com", purpose: "email-change" }, "INVALID_REQUEST"],
      ["/email-otp/send-verification-otp", { email: "a@example.com", purpose: "admin" }, "INVALID_REQUEST"],
      ["/email-otp/send-verification-otp", { email: "a@example.com" }, "INVALID_REQUEST"],
      ["/email-otp/send-verification-otp", { email: "not an email", purpose: "sign-in" }, "INVALID_EMAIL"],
      ["/email-otp/send-verification-otp", { email: { $ne: null }, purpose: "sign-in" }, "INVALID_REQUEST"],
      ["/email-otp/request-password-reset", { email: "x" }, "INVALID_EMAIL"],
      ["/sign-in/email-otp", { email: "a@example.com", otp: "123456", name: { x: 1 } }, "INVALID_REQUEST"],
      ["/email-otp/reset-password", { email: "a@example.com", otp: "123456", password: "short" }, "PASSWORD_TOO_SHORT"],
    ];
    for (const [path, body, code] of cases) {
      const res = await t.post(path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect((await res.json()).code).toBe(code);
    }
    expect(t.generated).toEqual([]);
  });

  it("codeLength sets the digits: 8-digit codes keep leading zeros and 6-digit input is refused", async () => {
    const t = createOtpTestAuth({ codeLength: 8 });
    const codes = new Set<string>();
    for (let i = 0; i < 12; i++) codes.add((await t.sendCode(`u${i}@example.com`, "sign-in"))!);
    for (const c of codes) expect(c).toMatch(/^[0-9]{8}$/);
    const res = await t.post(CHECK, { email: "u0@example.com", purpose: "sign-in", otp: "123456" });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("INVALID_REQUEST");
  });
});

describe("plugin installation", () => {
  it("without emailOtp() every OTP path answers 404", async () => {
    const t = createTestAuth();
    for (const path of ["/email-otp/send-verification-otp", "/sign-in/email-otp", "/email-otp/verify-email", "/email-otp/reset-password", "/email-otp/request-email-change"]) {
      const res = await t.request("POST", path, { body: { email: "a@example.com", purpose: "sign-in" } });
      expect(res.status, path).toBe(404);
    }
    await expect(t.auth.api.sendVerificationOtp({ email: "a@example.com", purpose: "sign-in" })).rejects.toMatchObject({ code: "NOT_FOUND" });
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
    for (const path of ["/email-otp/send-verification-otp", "/email-otp/check-verification-otp", "/sign-in/email-otp", "/email-otp/verify-email", "/email-otp/request-password-reset", "/email-otp/reset-password", "/email-otp/request-email-change", "/email-otp/change-email"]) {
      expect(doc.paths[path]?.post, path).toBeDefined();
    }
  });
});

describe("auth.api", () => {
  it("sends, checks, signs in, verifies and resets without HTTP", async () => {
    const t = createOtpTestAuth();
    expect(await t.auth.api.sendVerificationOtp({ email: "ada@example.com", purpose: "sign-in" })).toEqual({ success: true });
    const code = t.auth.getOtp("ada@example.com")!;
    expect(await t.auth.api.checkVerificationOtp({ email: "ada@example.com", purpose: "sign-in", otp: code })).toEqual({ success: true });
    const signedIn = await t.auth.api.signInEmailOtp({ email: "ada@example.com", otp: code, name: "Ada" });
    expect(signedIn.user).toMatchObject({ email: "ada@example.com", emailVerified: true, name: "Ada" });
    expect(signedIn.cookie.value).toBe(signedIn.credentials.token);
    await t.auth.api.sendVerificationOtp({ email: "ada@example.com", purpose: "email-verification" });
    expect((await t.auth.api.verifyEmailOtp({ email: "ada@example.com", otp: t.auth.getOtp("ada@example.com")! })).user.id).toBe(signedIn.user.id);
    await t.auth.api.requestPasswordResetEmailOtp({ email: "ada@example.com" });
    expect(await t.auth.api.resetPasswordEmailOtp({ email: "ada@example.com", otp: t.auth.getOtp("ada@example.com")!, password: "a fresh password" })).toEqual({ success: true });
    expect(await t.auth.api.getSession(signedIn.credentials.token)).toBeNull();
    await expect(t.auth.api.signInEmailOtp({ email: "ada@example.com", otp: "12345" })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(t.auth.api.sendVerificationOtp({ email: "ada@example.com", purpose: "email-change" as never })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
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
    await t.post(CHECK, { email: "ada@example.com", purpose: "sign-in", otp: wrongCode(keep(await t.sendCode("ada@example.com", "sign-in"))) });
    await t.post("/sign-in/email-otp", { email: "ada@example.com", otp: codes[0] });
    await t.post("/email-otp/verify-email", { email: "ada@example.com", otp: keep(await t.sendCode("ada@example.com", "email-verification")) });
    await t.post("/email-otp/request-password-reset", { email: "ada@example.com" });
    await t.post("/email-otp/reset-password", { email: "ada@example.com", otp: keep(t.auth.getOtp("ada@example.com")), password: "a new password!" });
    const session = await t.post("/sign-in/email-otp", { email: "ada@example.com", otp: keep(await t.sendCode("ada@example.com", "sign-in")) });
    const auth = { authorization: `Bearer ${(await session.json()).credentials.token}` };
    await t.post("/email-otp/request-email-change", { newEmail: "ada@new.example" }, { headers: auth });
    await t.post("/email-otp/change-email", { newEmail: "ada@new.example", otp: keep(t.auth.getOtp("ada@new.example")) }, { headers: auth });
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
