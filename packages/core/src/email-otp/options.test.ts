import { describe, expect, it } from "vitest";
import { AuthConfigError } from "../errors/errors.ts";
import { DEFAULT_TEMPLATES } from "../email/email.ts";
import { emailOtp } from "./plugin.ts";
import { otpTemplateSources, resolveEmailOtpOptions } from "./options.ts";

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AuthConfigError) return error.field;
    throw error;
  }
  return undefined;
}

describe("emailOtp options", () => {
  it("defaults: 6 digits, 5 minutes, 3 attempts, sign-up allowed, email change off", () => {
    expect(resolveEmailOtpOptions()).toEqual({
      codeLength: 6,
      expiresInMs: 300_000,
      maxAttempts: 3,
      allowSignUp: true,
      emailChange: { enabled: false, verifyCurrentEmail: false },
      templates: {},
    });
    expect(resolveEmailOtpOptions({ expiresIn: "30s", codeLength: 10 })).toMatchObject({
      expiresInMs: 30_000,
      codeLength: 10,
    });
  });

  it("emailOtp() itself throws AuthConfigError naming the bad option", () => {
    expect(fieldOf(() => emailOtp({ codeLength: 3 }))).toBe("emailOtp.codeLength");
    expect(fieldOf(() => emailOtp({ codeLength: 11 }))).toBe("emailOtp.codeLength");
    expect(fieldOf(() => emailOtp({ maxAttempts: 0 }))).toBe("emailOtp.maxAttempts");
    expect(fieldOf(() => emailOtp({ expiresIn: "5 minutes" as never }))).toBe("emailOtp.expiresIn");
    expect(fieldOf(() => emailOtp({ allowSignUp: "no" as never }))).toBe("emailOtp.allowSignUp");
    expect(fieldOf(() => emailOtp({ emailChange: { verifyCurrentEmail: 1 as never } }))).toBe(
      "emailOtp.emailChange.verifyCurrentEmail",
    );
    expect(fieldOf(() => emailOtp({ templates: { "otp-signin.subject": "x" } }))).toBe(
      'emailOtp.templates["otp-signin.subject"]',
    );
    expect(fieldOf(() => emailOtp({ templates: { "otp.txt": 5 as never } }))).toBe('emailOtp.templates["otp.txt"]');
    expect(fieldOf(() => emailOtp({ codeLength: 4, maxAttempts: 100 }))).toBeUndefined();
  });

  it("template sources: plugin per-purpose, then global per-purpose, then plugin otp.*, global otp.*, built-in", () => {
    const sources = otpTemplateSources(
      { "otp-sign-in.subject": "P-signin", "otp.txt": "P-txt" },
      { "otp-sign-in.txt": "G-signin-txt", "otp.subject": "G-subject", "otp-email-change.html": "G-change-html" },
    );
    expect(sources["otp-sign-in.subject"]).toBe("P-signin");
    expect(sources["otp-sign-in.txt"]).toBe("G-signin-txt");
    expect(sources["otp-password-reset.subject"]).toBe("G-subject");
    expect(sources["otp-password-reset.txt"]).toBe("P-txt");
    expect(sources["otp-password-reset.html"]).toBe(DEFAULT_TEMPLATES["otp.html"]);
    expect(sources["otp-email-change.html"]).toBe("G-change-html");
  });
});
