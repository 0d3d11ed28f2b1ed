import { apiKeyRecord } from "@latchkey/test-support";
import { describe, expect, it } from "vitest";
import { hashSecret, type ApiKeyRecord } from "@latchkey/core";
import { bearer, cookieHeaders } from "../../../test/test-auth.ts";
import { createOtpTestAuth } from "./fixtures.ts";

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
