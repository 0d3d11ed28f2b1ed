import { describe, expect, it } from "vitest";
import { hashSecret, type AuthEvent } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";
import { PASSWORD, send } from "./test-fixtures.ts";

describe("POST /send-verification-email", () => {
  it("emails both templates with the token in the link; only the hash is stored; OtpGenerated carries the token", async () => {
    const t = createTestAuth();
    const events: AuthEvent[] = [];
    t.auth.events.onAny((e) => void events.push(e));
    const { userId } = await t.signUp("ada@example.com");
    const res = await send(t, "  ADA@example.com ");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    const token = t.auth.getOtp("ada@example.com")!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await t.settle();
    const mail = t.emails.last("ada@example.com")!;
    const link = `https://app.example/verify-email?token=${token}&email=ada%40example.com`;
    expect(mail).toMatchObject({
      template: "verification",
      subject: "Verify your email",
      from: "no-reply@app.example",
    });
    expect(mail.text).toContain(link);
    expect(mail.html).toContain(`href="${link.replace("&", "&amp;")}"`);
    expect(mail.text).toContain("1440 minutes");
    const row = await t.store.verifications.findByIdentifier("email-verification-link:ada@example.com");
    expect(row).toMatchObject({
      userId,
      valueHash: hashSecret(token),
      expiresAt: new Date(t.clock.now() + 86_400_000),
    });
    expect(JSON.stringify(row)).not.toContain(token);
    const generated = events.find((e) => e.type === "OtpGenerated");
    expect(generated).toMatchObject({
      identifier: "ada@example.com",
      purpose: "email-verification-link",
      plain: token,
    });
    expect(events.find((e) => e.type === "OtpRequested")).toMatchObject({
      identifier: "ada@example.com",
      purpose: "email-verification-link",
    });
  });

  it("answers identically for unknown and already verified emails and sends them nothing (enumeration)", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com");
    await t.auth.api.createUser({ email: "done@example.com", password: PASSWORD, emailVerified: true });
    const known = await send(t, "ada@example.com");
    const unknown = await send(t, "nobody@example.com");
    const verified = await send(t, "done@example.com");
    for (const res of [known, unknown, verified]) expect(res.status).toBe(200);
    const bodies = await Promise.all([known, unknown, verified].map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    await t.settle();
    expect(t.emails.sent.map((m) => m.to)).toEqual(["ada@example.com"]);
    expect(await t.store.verifications.findByIdentifier("email-verification-link:nobody@example.com")).toBeNull();
    expect(await t.store.verifications.findByIdentifier("email-verification-link:done@example.com")).toBeNull();
  });

  it("rejects untrusted callback URLs with 400 INVALID_CALLBACK_URL for known and unknown emails alike (open redirect)", async () => {
    const t = createTestAuth({ trustedOrigins: ["https://trusted.example"] });
    await t.signUp("ada@example.com");
    for (const email of ["ada@example.com", "nobody@example.com"]) {
      for (const callbackUrl of [
        "//evil.example/x",
        "/\\evil.example",
        "https://trusted.example.evil.com/x",
        "https://evil.example/verify",
        "javascript:alert(1)",
      ]) {
        const res = await send(t, email, callbackUrl);
        expect(res.status, callbackUrl).toBe(400);
        expect((await res.json()).code).toBe("INVALID_CALLBACK_URL");
      }
    }
    await t.settle();
    expect(t.emails.sent).toHaveLength(0);
    expect(await t.store.verifications.findByIdentifier("email-verification-link:ada@example.com")).toBeNull();
  });

  it("accepts a path on baseUrl or a trusted origin as the callback", async () => {
    const t = createTestAuth({ trustedOrigins: ["https://trusted.example"] });
    await t.signUp("ada@example.com");
    await send(t, "ada@example.com", "/welcome?step=2");
    await t.settle();
    expect(t.emails.last()!.text).toContain(
      `https://app.example/welcome?step=2&token=${t.auth.getOtp("ada@example.com")}`,
    );
    await send(t, "ada@example.com", "https://trusted.example/verified");
    await t.settle();
    expect(t.emails.last()!.text).toContain(
      `https://trusted.example/verified?token=${t.auth.getOtp("ada@example.com")}`,
    );
  });

  it("honours emailVerification.callbackPath, expiresIn and callbackUrlOverride", async () => {
    const t = createTestAuth({ emailVerification: { callbackPath: "/auth-callback/verify", expiresIn: "30m" } });
    await t.signUp("ada@example.com");
    await send(t, "ada@example.com");
    await t.settle();
    expect(t.emails.last()!.text).toContain(
      `https://app.example/auth-callback/verify?token=${t.auth.getOtp("ada@example.com")}`,
    );
    await t.settle();
    expect(t.emails.last()!.text).toContain("30 minutes");
    expect(
      (await t.store.verifications.findByIdentifier("email-verification-link:ada@example.com"))!.expiresAt.getTime(),
    ).toBe(t.clock.now() + 30 * 60_000);

    const o = createTestAuth({ emailVerification: { callbackUrlOverride: "https://id.example/verify" } });
    await o.signUp("ada@example.com");
    await send(o, "ada@example.com");
    expect(o.emails.last()!.text).toContain(`https://id.example/verify?token=${o.auth.getOtp("ada@example.com")}`);
  });

  it("renders overridden templates and escapes variables in HTML", async () => {
    const t = createTestAuth({
      appName: "<Acme & Co>",
      email: {
        templates: {
          "verification.subject": "Welcome to {{appName}}",
          "verification.txt": "Go: {{url}} ({{email}})",
          "verification.html": '<b>{{appName}}</b> <a href="{{url}}">go</a>',
        },
      },
    });
    await t.signUp("ada@example.com");
    await send(t, "ada@example.com");
    const token = t.auth.getOtp("ada@example.com");
    await t.settle();
    const mail = t.emails.last()!;
    expect(mail.subject).toBe("Welcome to <Acme & Co>");
    expect(mail.text).toBe(
      `Go: https://app.example/verify-email?token=${token}&email=ada%40example.com (ada@example.com)`,
    );
    expect(mail.html).toBe(
      `<b>&lt;Acme &amp; Co&gt;</b> <a href="https://app.example/verify-email?token=${token}&amp;email=ada%40example.com">go</a>`,
    );
  });

  it("a failing sender does not change the answer (delivery failures cannot enumerate addresses)", async () => {
    const failing = {
      async send() {
        throw new Error("smtp down");
      },
    };
    const t = createTestAuth({ email: { sender: failing } });
    await t.signUp("ada@example.com");
    const known = await send(t, "ada@example.com");
    const unknown = await send(t, "nobody@example.com");
    expect(known.status).toBe(200);
    expect(await known.text()).toBe(await unknown.text());
  });

  it("400 for a malformed email, without a lookup", async () => {
    const t = createTestAuth();
    const res = await send(t, "not-an-email");
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("INVALID_EMAIL");
  });
});
