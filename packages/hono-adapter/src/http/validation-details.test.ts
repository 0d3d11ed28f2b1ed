import { describe, expect, it } from "vitest";
import { emailOtp } from "@latchkey/core";
import { createTestAuth } from "../../test/test-auth.ts";

// Runs on every store the HTTP suites use (memory, libSQL, PostgreSQL).

describe("validation details always name the field", () => {
  it("sign-in/email, sign-up/email, send-verification-otp and non-object bodies", async () => {
    const t = createTestAuth({ plugins: [emailOtp()], rateLimit: { enabled: false } });
    const cases: Array<[string, unknown, string[]]> = [
      ["/sign-in/email", {}, ["email", "password"]],
      ["/sign-in/email", { email: "ada@example.com" }, ["password"]],
      ["/sign-in/email", { password: "correct horse battery" }, ["email"]],
      ["/sign-up/email", {}, ["email", "password"]],
      ["/email-otp/send-verification-otp", { email: "ada@example.com" }, ["purpose"]],
      ["/email-otp/send-verification-otp", { email: "ada@example.com", purpose: "sign-up" }, ["purpose"]],
      ["/sign-in/email", [], ["body"]],
      ["/sign-in/email", "text", ["body"]],
    ];
    for (const [path, body, paths] of cases) {
      const res = await t.request("POST", path, { body: JSON.stringify(body) });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      const json = await res.json();
      expect(json.code).toBe("INVALID_REQUEST");
      const named = (json.details as Array<{ path: string }>).map((d) => d.path);
      expect(
        named.every((p) => p.length > 0),
        JSON.stringify(json.details),
      ).toBe(true);
      expect([...new Set(named)].sort(), `${path} ${JSON.stringify(body)}`).toEqual(paths);
    }
    const broken = await t.request("POST", "/sign-in/email", {
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect((await broken.json()).details).toEqual([{ path: "body", message: "not valid JSON" }]);
    // Username sign-in still works through the same schema.
    await t.signUp("ada@example.com", "correct horse battery", { username: "ada" });
    expect(
      (await t.request("POST", "/sign-in/email", { body: { username: "ada", password: "correct horse battery" } }))
        .status,
    ).toBe(200);
  });
});
