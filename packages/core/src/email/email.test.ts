import { describe, expect, it } from "vitest";
import { consoleEmailSender, DEFAULT_TEMPLATES, renderEmail } from "./email.ts";

const message = {
  to: "p@example.com",
  from: "no-reply@app.example",
  subject: "Your code: 866435",
  text: "Your code is 866435",
  html: "<b>866435</b>",
  template: "otp-sign-in",
};

describe("consoleEmailSender", () => {
  it("bug: in production it prints the template only, never the recipient (issue 49 item 17) or the subject (which may carry a code)", async () => {
    const lines: string[] = [];
    await consoleEmailSender({ log: (l) => lines.push(l) }).send(message);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("p@example.com");
    expect(lines[0]).toContain("template=otp-sign-in");
    expect(lines[0]).not.toContain("866435");
  });

  it("in development it prints the whole email and says so on its first line", async () => {
    const lines: string[] = [];
    await consoleEmailSender({ showBody: true, log: (l) => lines.push(l) }).send(message);
    const [first, ...rest] = (lines[0] as string).split("\n");
    expect(first).toMatch(/development mode: printing the whole email/);
    expect(rest.join("\n")).toContain("Your code is 866435");
  });
});

describe("default OTP subject", () => {
  it("does not carry the code (a subject override with {{otp}} still may)", () => {
    expect(DEFAULT_TEMPLATES["otp.subject"]).not.toContain("{{otp}}");
    expect(renderEmail({}, "otp", { otp: "123456", appName: "Acme" }).subject).toBe("Your Acme code");
    expect(renderEmail({ "otp.subject": "Code {{otp}}" }, "otp", { otp: "123456" }).subject).toBe("Code 123456");
  });
});
