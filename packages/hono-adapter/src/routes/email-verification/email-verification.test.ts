import { describe, expect, it } from "vitest";
import { hashSecret, type AuthEvent } from "@latchkey/core";
import { createTestAuth, type TestAuth } from "../../testing/test-auth.ts";

const PASSWORD = "correct horse battery";
// Background sends resolve on the next macrotask.
const flush = () => new Promise((r) => setTimeout(r, 0));

let ipSeq = 0;
const nextIp = () => `198.18.${Math.floor(ipSeq / 250)}.${(ipSeq++ % 250) + 1}`;

async function send(t: TestAuth, email: string, callbackUrl?: string) {
  const res = await t.request("POST", "/send-verification-email", { body: { email, ...(callbackUrl === undefined ? {} : { callbackUrl }) }, ip: nextIp() });
  await flush();
  return res;
}

const verify = (t: TestAuth, email: string, token: string) => t.request("POST", "/verify-email", { body: { email, token }, ip: nextIp() });

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
    const mail = t.emails.last("ada@example.com")!;
    const link = `https://app.example/verify-email?token=${token}&email=ada%40example.com`;
    expect(mail).toMatchObject({ template: "verification", subject: "Verify your email", from: "no-reply@app.example" });
    expect(mail.text).toContain(link);
    expect(mail.html).toContain(`href="${link.replace("&", "&amp;")}"`);
    expect(mail.text).toContain("1440 minutes");
    const row = await t.store.verifications.findByIdentifier("email-verification-link:ada@example.com");
    expect(row).toMatchObject({ userId, valueHash: hashSecret(token), expiresAt: new Date(t.clock.now() + 86_400_000) });
    expect(JSON.stringify(row)).not.toContain(token);
    const generated = events.find((e) => e.type === "OtpGenerated");
    expect(generated).toMatchObject({ identifier: "ada@example.com", purpose: "email-verification-link", plain: token });
    expect(events.find((e) => e.type === "OtpRequested")).toMatchObject({ identifier: "ada@example.com", purpose: "email-verification-link" });
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
    expect(t.emails.sent.map((m) => m.to)).toEqual(["ada@example.com"]);
    expect(await t.store.verifications.findByIdentifier("email-verification-link:nobody@example.com")).toBeNull();
    expect(await t.store.verifications.findByIdentifier("email-verification-link:done@example.com")).toBeNull();
  });

  it("rejects untrusted callback URLs with 400 INVALID_CALLBACK_URL for known and unknown emails alike (open redirect)", async () => {
    const t = createTestAuth({ trustedOrigins: ["https://trusted.example"] });
    await t.signUp("ada@example.com");
    for (const email of ["ada@example.com", "nobody@example.com"]) {
      for (const callbackUrl of ["//evil.example/x", "/\\evil.example", "https://trusted.example.evil.com/x", "https://evil.example/verify", "javascript:alert(1)"]) {
        const res = await send(t, email, callbackUrl);
        expect(res.status, callbackUrl).toBe(400);
        expect((await res.json()).code).toBe("INVALID_CALLBACK_URL");
      }
    }
    expect(t.emails.sent).toHaveLength(0);
    expect(await t.store.verifications.findByIdentifier("email-verification-link:ada@example.com")).toBeNull();
  });

  it("accepts a path on baseUrl or a trusted origin as the callback", async () => {
    const t = createTestAuth({ trustedOrigins: ["https://trusted.example"] });
    await t.signUp("ada@example.com");
    await send(t, "ada@example.com", "/welcome?step=2");
    expect(t.emails.last()!.text).toContain(`https://app.example/welcome?step=2&token=${t.auth.getOtp("ada@example.com")}`);
    await send(t, "ada@example.com", "https://trusted.example/verified");
    expect(t.emails.last()!.text).toContain(`https://trusted.example/verified?token=${t.auth.getOtp("ada@example.com")}`);
  });

  it("honours emailVerification.callbackPath, expiresIn and callbackUrlOverride", async () => {
    const t = createTestAuth({ emailVerification: { callbackPath: "/auth-callback/verify", expiresIn: "30m" } });
    await t.signUp("ada@example.com");
    await send(t, "ada@example.com");
    expect(t.emails.last()!.text).toContain(`https://app.example/auth-callback/verify?token=${t.auth.getOtp("ada@example.com")}`);
    expect(t.emails.last()!.text).toContain("30 minutes");
    expect((await t.store.verifications.findByIdentifier("email-verification-link:ada@example.com"))!.expiresAt.getTime()).toBe(t.clock.now() + 30 * 60_000);

    const o = createTestAuth({ emailVerification: { callbackUrlOverride: "https://id.example/verify" } });
    await o.signUp("ada@example.com");
    await send(o, "ada@example.com");
    expect(o.emails.last()!.text).toContain(`https://id.example/verify?token=${o.auth.getOtp("ada@example.com")}`);
  });

  it("renders overridden templates and escapes variables in HTML", async () => {
    const t = createTestAuth({
      appName: "<Acme & Co>",
      email: { templates: { "verification.subject": "Welcome to {{appName}}", "verification.txt": "Go: {{url}} ({{email}})", "verification.html": "<b>{{appName}}</b> <a href=\"{{url}}\">go</a>" } },
    });
    await t.signUp("ada@example.com");
    await send(t, "ada@example.com");
    const token = t.auth.getOtp("ada@example.com");
    const mail = t.emails.last()!;
    expect(mail.subject).toBe("Welcome to <Acme & Co>");
    expect(mail.text).toBe(`Go: https://app.example/verify-email?token=${token}&email=ada%40example.com (ada@example.com)`);
    expect(mail.html).toBe(`<b>&lt;Acme &amp; Co&gt;</b> <a href="https://app.example/verify-email?token=${token}&amp;email=ada%40example.com">go</a>`);
  });

  it("400 for a malformed email, without a lookup", async () => {
    const t = createTestAuth();
    const res = await send(t, "not-an-email");
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("INVALID_EMAIL");
  });
});

describe("POST /verify-email", () => {
  it("verifies, signs in with a fresh session cookie, and refuses a replay", async () => {
    const t = createTestAuth();
    const { userId, token: signUpToken } = await t.signUp("ada@example.com");
    await send(t, "ada@example.com");
    const token = t.auth.getOtp("ada@example.com")!;
    const res = await verify(t, "Ada@Example.com", token);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.user).toMatchObject({ id: userId, email: "ada@example.com", emailVerified: true });
    expect(body.credentials.token).not.toBe(signUpToken);
    expect(res.headers.get("set-cookie")).toBe(`__Secure-latchkey.session=${body.credentials.token}; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax; Secure`);
    expect((await t.store.users.findById(userId))!.emailVerified).toBe(true);
    expect((await t.store.sessions.findByTokenHash(hashSecret(body.credentials.token)))!.session.id).toBe(body.session.id);
    expect(await t.store.verifications.findByIdentifier("email-verification-link:ada@example.com")).toBeNull();
    const replay = await verify(t, "ada@example.com", token);
    expect(replay.status).toBe(400);
    expect((await replay.json()).code).toBe("INVALID_TOKEN");
  });

  it("a token sent to one address cannot verify another, and is not burnt by the attempt", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com");
    const { userId: eveId } = await t.signUp("eve@example.com");
    await send(t, "ada@example.com");
    const token = t.auth.getOtp("ada@example.com")!;
    const crossed = await verify(t, "eve@example.com", token);
    expect(crossed.status).toBe(400);
    expect((await crossed.json()).code).toBe("INVALID_TOKEN");
    expect((await t.store.users.findById(eveId))!.emailVerified).toBe(false);
    expect((await verify(t, "ada@example.com", token)).status).toBe(200);
  });

  it("fails with INVALID_TOKEN after expiry (clock moved) and after a newer send", async () => {
    const t = createTestAuth({ emailVerification: { expiresIn: "10m" } });
    const { userId } = await t.signUp("ada@example.com");
    await send(t, "ada@example.com");
    const old = t.auth.getOtp("ada@example.com")!;
    await send(t, "ada@example.com");
    const fresh = t.auth.getOtp("ada@example.com")!;
    expect((await (await verify(t, "ada@example.com", old)).json()).code).toBe("INVALID_TOKEN");
    t.clock.advance(10 * 60_000);
    const expired = await verify(t, "ada@example.com", fresh);
    expect(expired.status).toBe(400);
    expect((await expired.json()).code).toBe("INVALID_TOKEN");
    expect((await t.store.users.findById(userId))!.emailVerified).toBe(false);
  });

  it("refuses a link sent before the account's email changed", async () => {
    const t = createTestAuth();
    const { userId } = await t.signUp("old@example.com");
    await send(t, "old@example.com");
    const token = t.auth.getOtp("old@example.com")!;
    await t.store.users.update(userId, { email: "new@example.com" });
    expect((await verify(t, "old@example.com", token)).status).toBe(400);
    expect((await t.store.users.findById(userId))!.emailVerified).toBe(false);
  });

  it("wrong tokens feed the email's lockout like wrong passwords", async () => {
    const t = createTestAuth({ lockout: { maxFailures: 3 } });
    await t.signUp("ada@example.com");
    await send(t, "ada@example.com");
    const token = t.auth.getOtp("ada@example.com")!;
    for (let i = 0; i < 3; i++) expect((await verify(t, "ada@example.com", `${"A".repeat(42)}${i}`)).status).toBe(400);
    const locked = await verify(t, "ada@example.com", token);
    expect(locked.status).toBe(429);
    expect((await locked.json()).code).toBe("ACCOUNT_LOCKED");
    expect((await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: PASSWORD } })).status).toBe(429);
    t.clock.advance(15 * 60_000);
    expect((await verify(t, "ada@example.com", token)).status).toBe(200);
  });

  it("validates the body", async () => {
    const t = createTestAuth();
    for (const body of [{ email: "ada@example.com" }, { token: "x" }, { email: "ada@example.com", token: 5 }]) {
      const res = await t.request("POST", "/verify-email", { body });
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe("INVALID_REQUEST");
    }
  });
});

describe("emailVerification.requireVerifiedForSignIn", () => {
  it("sign-up answers {success: true} without a session and emails the link; existing emails answer the same", async () => {
    const t = createTestAuth({ emailVerification: { requireVerifiedForSignIn: true } });
    const res = await t.request("POST", "/sign-up/email", { body: { email: "ada@example.com", password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(res.headers.get("set-cookie")).toBeNull();
    await flush();
    const user = await t.store.users.findByEmail("ada@example.com");
    expect(user!.emailVerified).toBe(false);
    expect(t.emails.last("ada@example.com")!.text).toContain(`token=${t.auth.getOtp("ada@example.com")}`);

    const again = await t.request("POST", "/sign-up/email", { body: { email: "ada@example.com", password: "another password" } });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ success: true });
    await flush();
    expect(t.emails.sent).toHaveLength(1);
  });

  it("an unverified user gets 403 EMAIL_NOT_VERIFIED on sign-in (only with the right password), then signs in after verifying", async () => {
    const t = createTestAuth({ emailVerification: { requireVerifiedForSignIn: true } });
    await t.request("POST", "/sign-up/email", { body: { email: "ada@example.com", password: PASSWORD } });
    await flush();
    const wrong = await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: "wrong password!" } });
    expect(wrong.status).toBe(401);
    const unverified = await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: PASSWORD } });
    expect(unverified.status).toBe(403);
    expect((await unverified.json()).code).toBe("EMAIL_NOT_VERIFIED");
    const verified = await verify(t, "ada@example.com", t.auth.getOtp("ada@example.com")!);
    expect(verified.status).toBe(200);
    expect((await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: PASSWORD } })).status).toBe(200);
  });
});
