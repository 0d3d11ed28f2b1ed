import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { bearer } from "../../../test/test-auth.ts";
import { createOtpTestAuth, wrongCode } from "./fixtures.ts";

const SIGN_IN = "/sign-in/email-otp";
const PASSWORD = "correct horse battery";

describe("OTP sign-in", () => {
  it("an unknown email becomes a verified user with a password-less EMAIL_OTP account, a session and a cookie", async () => {
    const t = createOtpTestAuth();
    const seen: string[] = [];
    t.auth.events.onAny((e) => void seen.push(e.type));
    const code = (await t.sendCode("New@Example.com", "sign-in"))!;
    const res = await t.post(SIGN_IN, { email: "new@example.com", otp: code, name: "Newt" });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(["credentials", "session", "user"]);
    expect(body.user).toMatchObject({ email: "new@example.com", emailVerified: true, name: "Newt" });
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(
      /^__Host-latchkey\.session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
    );
    expect(cookie).toContain(body.credentials.token);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const user = (await t.store.users.findByEmail("new@example.com"))!;
    expect(user).toMatchObject({ id: body.user.id, emailVerified: true, name: "Newt" });
    const accounts = await t.store.accounts.listByUser(user.id);
    expect(accounts).toEqual([expect.objectContaining({ providerId: "EMAIL_OTP", passwordHash: null })]);
    const stored = await t.store.sessions.findByTokenHash(hashSecret(body.credentials.token));
    expect(stored!.session).toMatchObject({ id: body.session.id, userId: user.id });
    expect(await t.row("sign-in", "new@example.com")).toBeNull();
    expect(seen).toEqual(expect.arrayContaining(["UserSignedUp", "OtpVerified", "UserSignedIn"]));
    const session = await t.request("GET", "/get-session", { headers: bearer(body.credentials.token) });
    expect((await session.json()).user.id).toBe(user.id);
    // No password was set: password sign-in fails like any wrong password.
    const pw = await t.post("/sign-in/email", { email: "new@example.com", password: "anything at all" });
    expect(pw.status).toBe(401);
  });

  it("an existing verified user gets a new session, keeps the password, gains an EMAIL_OTP account once, and `name` is ignored", async () => {
    const t = createOtpTestAuth();
    await t.auth.api.createUser({ email: "ada@example.com", password: PASSWORD, name: "Ada", emailVerified: true });
    const user = (await t.store.users.findByEmail("ada@example.com"))!;
    for (let i = 0; i < 2; i++) {
      const code = (await t.sendCode("ada@example.com", "sign-in"))!;
      const res = await t.post(SIGN_IN, { email: "ada@example.com", otp: code, name: "Mallory" });
      expect(res.status).toBe(200);
      expect((await res.json()).user).toMatchObject({ id: user.id, name: "Ada" });
    }
    const providers = (await t.store.accounts.listByUser(user.id)).map((a) => a.providerId).sort();
    expect(providers).toEqual(["EMAIL_OTP", "credential"]);
    expect(await t.countSessions(user.id)).toBe(2);
    expect((await t.post("/sign-in/email", { email: "ada@example.com", password: PASSWORD })).status).toBe(200);
  });

  it("with allowSignUp false an unknown email is 401 INVALID_CREDENTIALS, no user is created and no code was ever sent to it", async () => {
    const t = createOtpTestAuth({ allowSignUp: false });
    await t.auth.api.createUser({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
    expect(await t.sendCode("new@example.com", "sign-in")).toBeUndefined();
    const res = await t.post(SIGN_IN, { email: "new@example.com", otp: "123456" });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe("INVALID_CREDENTIALS");
    expect(await t.store.users.findByEmail("new@example.com")).toBeNull();
    await t.settle();
    expect(t.emails.sent.filter((m) => m.to === "new@example.com")).toEqual([]);
    const known = (await t.sendCode("ada@example.com", "sign-in"))!;
    expect((await t.post(SIGN_IN, { email: "ada@example.com", otp: known })).status).toBe(200);
  });

  it("a wrong code is 400 INVALID_OTP and creates nothing", async () => {
    const t = createOtpTestAuth();
    const code = (await t.sendCode("new@example.com", "sign-in"))!;
    const res = await t.post(SIGN_IN, { email: "new@example.com", otp: wrongCode(code) });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("INVALID_OTP");
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await t.store.users.findByEmail("new@example.com")).toBeNull();
    expect((await t.row("sign-in", "new@example.com"))!.attemptCount).toBe(1);
  });
});

describe("races", () => {
  it("20 parallel sign-ins with the same correct code create exactly one user and one session", async () => {
    const t = createOtpTestAuth({}, { rateLimit: { enabled: false } });
    const code = (await t.sendCode("race@example.com", "sign-in"))!;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.post(SIGN_IN, { email: "race@example.com", otp: code })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(19);
    for (const r of results.filter((x) => x.status === 400)) expect((await r.json()).code).toBe("INVALID_OTP");
    const user = (await t.store.users.findByEmail("race@example.com"))!;
    expect(await t.store.accounts.listByUser(user.id)).toHaveLength(1);
    expect(await t.countSessions(user.id)).toBe(1);
  });

  it("a sign-up of the email that commits after the code was checked is the user signed in, not a second one", async () => {
    // The sign-in looked the email up (nobody) before its checks; the hook runs after them and before the
    // transaction, and a password sign-up of the same email commits right there. The transaction's insert meets
    // it as a conflict: that user is signed in, proven by the code (its pre-proof password account goes).
    let raced: { id: string } | null = null;
    const t = createOtpTestAuth(
      {},
      {
        rateLimit: { enabled: false },
        hooks: {
          async beforeUserCreated(user, context) {
            // The sign-up below runs this hook too; only the OTP sign-in's call races it.
            if (context.path === "sign-in-email-otp")
              raced = await t.auth.api.createUser({ email: user.email, password: PASSWORD });
          },
        },
      },
    );
    const code = (await t.sendCode("late@example.com", "sign-in"))!;
    const res = await t.post(SIGN_IN, { email: "late@example.com", otp: code });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(raced).not.toBeNull();
    expect(body.user).toMatchObject({ id: raced!.id, email: "late@example.com", emailVerified: true });
    expect(await t.store.users.findByEmail("late@example.com")).toMatchObject({ id: raced!.id, emailVerified: true });
    expect((await t.store.accounts.listByUser(raced!.id)).map((a) => a.providerId)).toEqual(["EMAIL_OTP"]);
    expect(await t.countSessions(raced!.id)).toBe(1);
  });

  it("20 parallel sign-ins of an existing user with one code yield one session", async () => {
    const t = createOtpTestAuth({}, { rateLimit: { enabled: false } });
    const user = await t.auth.api.createUser({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
    const code = (await t.sendCode("ada@example.com", "sign-in"))!;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.post(SIGN_IN, { email: "ada@example.com", otp: code })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await t.countSessions(user.id)).toBe(1);
  });
});

describe("verify-email", () => {
  it("answers {user}, sets no cookie, and an email without a user is INVALID_OTP", async () => {
    const t = createOtpTestAuth();
    const res = await t.post("/email-otp/verify-email", { email: "nobody@example.com", otp: "123456" });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("INVALID_OTP");
    const ada = await t.signUp("ada@example.com");
    const verified: unknown[] = [];
    t.auth.events.on("EmailVerified", (e) => void verified.push(e));
    const code = (await t.sendCode("ada@example.com", "email-verification"))!;
    const ok = await t.post("/email-otp/verify-email", { email: "ada@example.com", otp: code });
    const body = await ok.json();
    expect(Object.keys(body)).toEqual(["user"]);
    expect(body.user).toMatchObject({ id: ada.userId, emailVerified: true });
    expect(verified).toEqual([expect.objectContaining({ userId: ada.userId, email: "ada@example.com" })]);
  });
});
