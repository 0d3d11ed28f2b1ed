import { describe, expect, it } from "vitest";
import { createOtpTestAuth } from "./fixtures.ts";

const CHECK = "/email-otp/check-verification-otp";

describe("malformed input", () => {
  const BAD_OTPS: unknown[] = [
    "12345a",
    "abcdef",
    "12345",
    "1234567",
    "",
    " 12345",
    "12 345",
    "١٢٣٤٥٦",
    "123456\n",
    123456,
    null,
    { $gt: "" },
    ["123456"],
    true,
  ];

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
