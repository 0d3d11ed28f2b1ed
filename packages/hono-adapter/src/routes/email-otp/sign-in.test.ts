import { apiKeyRecord } from "@latchkey/test-support";
import { describe, expect, it } from "vitest";
import { hashSecret, type ApiKeyRecord } from "@latchkey/core";
import { bearer, cookieHeaders } from "../../../test/test-auth.ts";
import { createOtpTestAuth, wrongCode } from "./fixtures.ts";

const SIGN_IN = "/sign-in/email-otp";
const PASSWORD = "correct horse battery";

function apiKey(userId: string, now: Date): ApiKeyRecord {
  return apiKeyRecord({
    id: `key-${userId}`,
    userId,
    name: "attacker key",
    start: "lk_abcde",
    keyHash: hashSecret(`lk_secret-${userId}`),
    createdAt: now,
    updatedAt: now,
  });
}

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

describe("pre-account hijacking", () => {
  it("regression (Better Auth GHSA-qq9h-g4jm-xgf3): an attacker's password, sessions and API keys on an unverified account die when the owner signs in by OTP", async () => {
    const t = createOtpTestAuth();
    // The attacker registers the victim's address with a password they know, and keeps a session and an API key.
    const attacker = await t.signUp("victim@example.com", "attacker password");
    await t.store.apiKeys.create(apiKey(attacker.userId, new Date(t.clock.now())));
    // The victim, who owns the mailbox, signs in with a code.
    const code = (await t.sendCode("victim@example.com", "sign-in"))!;
    const res = await t.post(SIGN_IN, { email: "victim@example.com", otp: code });
    expect(res.status).toBe(200);
    const victim = await res.json();
    expect(victim.user).toMatchObject({ id: attacker.userId, emailVerified: true });
    const accounts = await t.store.accounts.listByUser(attacker.userId);
    expect(accounts).toEqual([expect.objectContaining({ providerId: "EMAIL_OTP", passwordHash: null })]);
    expect(await t.store.sessions.findByTokenHash(hashSecret(attacker.token))).toBeNull();
    expect(await (await t.request("GET", "/get-session", { headers: bearer(attacker.token) })).json()).toBeNull();
    expect(await t.store.apiKeys.findById(`key-${attacker.userId}`)).toBeNull();
    const replay = await t.post("/sign-in/email", { email: "victim@example.com", password: "attacker password" });
    expect(replay.status).toBe(401);
    // The victim's own new session survives.
    expect(await t.store.sessions.findByTokenHash(hashSecret(victim.credentials.token))).not.toBeNull();
  });

  it("regression (Better Auth GHSA-qq9h-g4jm-xgf3): verifying the email by OTP also removes pre-proof accounts and sessions", async () => {
    const t = createOtpTestAuth();
    const attacker = await t.signUp("victim@example.com", "attacker password");
    const revoked: Array<{ reason: string; count: number }> = [];
    t.auth.events.on("SessionRevoked", (e) => void revoked.push(e));
    const code = (await t.sendCode("victim@example.com", "email-verification"))!;
    const res = await t.post("/email-otp/verify-email", { email: "victim@example.com", otp: code });
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect((await res.json()).user.emailVerified).toBe(true);
    expect((await t.store.accounts.listByUser(attacker.userId)).map((a) => a.providerId)).toEqual(["EMAIL_OTP"]);
    expect(await t.store.sessions.findByTokenHash(hashSecret(attacker.token))).toBeNull();
    expect(revoked).toEqual([expect.objectContaining({ reason: "email-proven", count: 1 })]);
    expect(
      (await t.post("/sign-in/email", { email: "victim@example.com", password: "attacker password" })).status,
    ).toBe(401);
  });

  it("verifying the email while signed in as that same user keeps the password, API keys and the current session; other sessions go", async () => {
    const t = createOtpTestAuth();
    const ada = await t.signUp("ada@example.com", PASSWORD);
    const other = await t.post("/sign-in/email", { email: "ada@example.com", password: PASSWORD });
    const otherToken = (await other.json()).credentials.token as string;
    await t.store.apiKeys.create(apiKey(ada.userId, new Date(t.clock.now())));
    const revoked: Array<{ reason: string; count: number }> = [];
    t.auth.events.on("SessionRevoked", (e) => void revoked.push(e));
    const code = (await t.sendCode("ada@example.com", "email-verification"))!;
    // The cookie carries the session (with a trusted Origin, as a browser sends it).
    const res = await t.post(
      "/email-otp/verify-email",
      { email: "ada@example.com", otp: code },
      { headers: cookieHeaders(ada.token) },
    );
    expect(res.status).toBe(200);
    expect((await res.json()).user).toMatchObject({ id: ada.userId, emailVerified: true });
    expect(await t.store.sessions.findByTokenHash(hashSecret(ada.token))).not.toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(otherToken))).toBeNull();
    expect(revoked).toEqual([expect.objectContaining({ reason: "email-proven", count: 1 })]);
    expect((await t.store.accounts.listByUser(ada.userId)).map((a) => a.providerId).sort()).toEqual([
      "EMAIL_OTP",
      "credential",
    ]);
    expect(await t.store.apiKeys.findById(`key-${ada.userId}`)).not.toBeNull();
    expect((await t.post("/sign-in/email", { email: "ada@example.com", password: PASSWORD })).status).toBe(200);
  });

  it("verifying with another user's session (or none) is a proof without the owner's session: the full clean-up runs", async () => {
    const t = createOtpTestAuth();
    const attacker = await t.signUp("victim@example.com", "attacker password");
    const eve = await t.signUp("eve@example.com", PASSWORD);
    const code = (await t.sendCode("victim@example.com", "email-verification"))!;
    const res = await t.post(
      "/email-otp/verify-email",
      { email: "victim@example.com", otp: code },
      { headers: bearer(eve.token) },
    );
    expect(res.status).toBe(200);
    expect((await t.store.accounts.listByUser(attacker.userId)).map((a) => a.providerId)).toEqual(["EMAIL_OTP"]);
    expect(await t.store.sessions.findByTokenHash(hashSecret(attacker.token))).toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(eve.token))).not.toBeNull();
    expect(
      (await t.post("/sign-in/email", { email: "victim@example.com", password: "attacker password" })).status,
    ).toBe(401);
  });

  it("an already verified user keeps accounts and sessions when proving the email again", async () => {
    const t = createOtpTestAuth();
    const ada = await t.signUp("ada@example.com");
    const first = (await t.sendCode("ada@example.com", "email-verification"))!;
    expect((await t.post("/email-otp/verify-email", { email: "ada@example.com", otp: first })).status).toBe(200);
    const session = await t.post(SIGN_IN, {
      email: "ada@example.com",
      otp: (await t.sendCode("ada@example.com", "sign-in"))!,
    });
    const token = (await session.json()).credentials.token;
    const again = (await t.sendCode("ada@example.com", "email-verification"))!;
    expect((await t.post("/email-otp/verify-email", { email: "ada@example.com", otp: again })).status).toBe(200);
    expect(await t.store.sessions.findByTokenHash(hashSecret(token))).not.toBeNull();
    expect((await t.store.accounts.listByUser(ada.userId)).map((a) => a.providerId).sort()).toEqual(["EMAIL_OTP"]);
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
