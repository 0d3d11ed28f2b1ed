import { describe, expect, it } from "vitest";
import { bearer } from "../../../test/test-auth.ts";
import { createOtpTestAuth } from "./fixtures.ts";

const REQUEST = "/email-otp/request-email-change";
const CHANGE = "/email-otp/change-email";
const enabled = { emailChange: { enabled: true } };

describe("email change with verifyCurrentEmail", () => {
  const strict = { emailChange: { enabled: true, verifyCurrentEmail: true } };

  it("requires otpForCurrent: an email-verification code of the current email, which is used up", async () => {
    const t = createOtpTestAuth(strict);
    const ada = await t.signUp("ada@example.com");
    const missing = await t.post(REQUEST, { newEmail: "ada@new.example" }, { headers: bearer(ada.token) });
    expect(missing.status).toBe(400);
    expect((await missing.json()).code).toBe("INVALID_REQUEST");
    const malformed = await t.post(
      REQUEST,
      { newEmail: "ada@new.example", otpForCurrent: "12ab56" },
      { headers: bearer(ada.token) },
    );
    expect((await malformed.json()).code).toBe("INVALID_REQUEST");
    const signInCode = (await t.sendCode("ada@example.com", "sign-in"))!;
    const wrongPurpose = await t.post(
      REQUEST,
      { newEmail: "ada@new.example", otpForCurrent: signInCode },
      { headers: bearer(ada.token) },
    );
    expect((await wrongPurpose.json()).code).toBe("INVALID_OTP");
    expect(t.auth.getOtp("ada@new.example")).toBeUndefined();
    const current = (await t.sendCode("ada@example.com", "email-verification"))!;
    const ok = await t.post(
      REQUEST,
      { newEmail: "ada@new.example", otpForCurrent: current },
      { headers: bearer(ada.token) },
    );
    expect(ok.status).toBe(200);
    expect(await t.row("email-verification", "ada@example.com")).toBeNull();
    const code = t.auth.getOtp("ada@new.example")!;
    expect(
      (await t.post(CHANGE, { newEmail: "ada@new.example", otp: code }, { headers: bearer(ada.token) })).status,
    ).toBe(200);
    const reused = await t.post(
      REQUEST,
      { newEmail: "ada@other.example", otpForCurrent: current },
      { headers: bearer(ada.token) },
    );
    expect((await reused.json()).code).toBe("INVALID_OTP");
  });

  it("another user's current-email code does not count", async () => {
    const t = createOtpTestAuth(strict);
    const ada = await t.signUp("ada@example.com");
    await t.signUp("eve@example.com");
    const eveCode = (await t.sendCode("eve@example.com", "email-verification"))!;
    const res = await t.post(
      REQUEST,
      { newEmail: "ada@new.example", otpForCurrent: eveCode },
      { headers: bearer(ada.token) },
    );
    expect((await res.json()).code).toBe("INVALID_OTP");
  });
});

describe("email change through auth.api", () => {
  it("requestEmailChangeOtp and changeEmailOtp name the user by id", async () => {
    const t = createOtpTestAuth(enabled);
    const ada = await t.signUp("ada@example.com");
    expect(await t.auth.api.requestEmailChangeOtp({ userId: ada.userId, newEmail: "ada@new.example" })).toEqual({
      success: true,
    });
    const { user } = await t.auth.api.changeEmailOtp({
      userId: ada.userId,
      newEmail: "ada@new.example",
      otp: t.auth.getOtp("ada@new.example")!,
    });
    expect(user.email).toBe("ada@new.example");
    await expect(
      t.auth.api.changeEmailOtp({ userId: "nobody", newEmail: "x@example.com", otp: "123456" }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
