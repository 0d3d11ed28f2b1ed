import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { bearer, cookieHeaders, createTestAuth } from "../../../test/test-auth.ts";
import {
  PASSWORD,
  expectGone,
  recordEvents,
  requestDeletion,
  withEverything,
} from "../../../test/routes/account/test-fixtures.ts";

describe("POST /delete-account (password)", () => {
  it("deletes the user with sessions, accounts, API keys and tokens, clears the cookie and spares other users", async () => {
    const t = createTestAuth();
    const events = recordEvents(t);
    const ada = await withEverything(t, "ada@example.com");
    const grace = await withEverything(t, "grace@example.com");
    const res = await t.request("POST", "/delete-account", {
      headers: cookieHeaders(ada.token),
      body: { password: PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(res.headers.get("set-cookie")).toMatch(/^__Host-latchkey\.session=; Max-Age=0/);
    await expectGone(t, ada, "ada@example.com");
    expect(await t.store.users.findById(grace.userId)).not.toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(grace.token))).not.toBeNull();
    expect(await t.store.apiKeys.findById(`key-${grace.userId}`)).not.toBeNull();
    expect(events.filter((e) => e.type === "AccountDeleted")).toEqual([
      expect.objectContaining({ userId: ada.userId, email: "ada@example.com" }),
    ]);
    // The deleted session no longer authenticates.
    expect(await (await t.request("GET", "/get-session", { headers: bearer(ada.secondToken) })).json()).toBeNull();
  });

  it("refuses a wrong password with 401 INVALID_PASSWORD, deletes nothing, and locks after 5 tries", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com");
    for (let i = 0; i < 5; i++) {
      const res = await t.request("POST", "/delete-account", {
        headers: bearer(token),
        body: { password: `wrong guess ${i}` },
        ip: `203.0.113.${i}`,
      });
      expect(res.status).toBe(401);
      expect((await res.json()).code).toBe("INVALID_PASSWORD");
    }
    const locked = await t.request("POST", "/delete-account", {
      headers: bearer(token),
      body: { password: PASSWORD },
      ip: "203.0.113.60",
    });
    expect(locked.status).toBe(429);
    expect((await locked.json()).code).toBe("ACCOUNT_LOCKED");
    expect(await t.store.users.findById(userId)).not.toBeNull();
  });

  it("needs a session, and an account without a password must use the emailed token", async () => {
    const t = createTestAuth();
    expect((await t.request("POST", "/delete-account", { body: { password: PASSWORD } })).status).toBe(401);
    const { token, userId } = await t.signUp("otp@example.com");
    await t.store.accounts.deleteAllExcept(userId, "EMAIL_OTP");
    const res = await t.request("POST", "/delete-account", { headers: bearer(token), body: { password: PASSWORD } });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe("INVALID_PASSWORD");
    expect(await t.store.users.findById(userId)).not.toBeNull();
  });

  it("lets the same email sign up again afterwards, without inherited lockout state", async () => {
    const t = createTestAuth({ lockout: { maxFailures: 3 } });
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD, { username: "ada" });
    for (let i = 0; i < 2; i++)
      await t.request("POST", "/sign-in/email", {
        body: { email: "ada@example.com", password: "wrong password!" },
        ip: `203.0.113.${i}`,
      });
    expect(
      (await t.request("POST", "/delete-account", { headers: bearer(token), body: { password: PASSWORD } })).status,
    ).toBe(200);
    for (const key of [`fail:user:${userId}`, `lock:user:${userId}`, "fail:email:ada@example.com"])
      expect(await t.counters.peek(key, t.clock.now()), key).toBeNull();
    await t.signUp("ada@example.com", "a different password", { username: "ada" });
    expect(
      (await t.request("POST", "/sign-in/email", { body: { username: "ada", password: "a different password" } }))
        .status,
    ).toBe(200);
  });
});

describe("POST /delete-account/request", () => {
  it("emails a single-use link to the account address; only the hash is stored", async () => {
    const t = createTestAuth();
    const events = recordEvents(t);
    const { token, userId } = await t.signUp("ada@example.com");
    const deleteToken = await requestDeletion(t, token, "ada@example.com");
    expect(deleteToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await t.settle();
    const mail = t.emails.last("ada@example.com")!;
    expect(mail.template).toBe("delete-account");
    expect(mail.subject).toBe("Confirm account deletion");
    expect(mail.text).toContain(`https://app.example/delete-account/confirm?token=${deleteToken}`);
    expect(mail.html).toContain(`href="https://app.example/delete-account/confirm?token=${deleteToken}"`);
    const row = await t.store.verifications.findByIdentifier(`delete-account:${userId}`);
    expect(row).toMatchObject({
      userId,
      valueHash: hashSecret(deleteToken),
      expiresAt: new Date(t.clock.now() + 3_600_000),
    });
    expect(JSON.stringify(row)).not.toContain(deleteToken);
    expect(
      events
        .filter((e) => e.type === "OtpRequested" || e.type === "OtpGenerated")
        .map((e) => [e.type, "purpose" in e ? e.purpose : null]),
    ).toEqual([
      ["OtpRequested", "delete-account"],
      ["OtpGenerated", "delete-account"],
    ]);
    expect(JSON.stringify(events.find((e) => e.type === "OtpRequested"))).not.toContain(deleteToken);
    expect(await t.store.users.findById(userId)).not.toBeNull();
  });

  it("needs a session", async () => {
    const t = createTestAuth();
    const res = await t.request("POST", "/delete-account/request", { body: {} });
    expect(res.status).toBe(401);
    await t.settle();
    expect(t.emails.sent).toHaveLength(0);
  });

  it("honours deleteAccount.subject, callbackPath and expiresIn", async () => {
    const t = createTestAuth({
      appName: "Acme",
      deleteAccount: {
        subject: "Delete your {{appName}} account?",
        callbackPath: "/settings/goodbye",
        expiresIn: "10m",
      },
    });
    const { token, userId } = await t.signUp("ada@example.com");
    const deleteToken = await requestDeletion(t, token, "ada@example.com");
    await t.settle();
    const mail = t.emails.last()!;
    expect(mail.subject).toBe("Delete your Acme account?");
    expect(mail.text).toContain(`https://app.example/settings/goodbye?token=${deleteToken}`);
    expect(mail.text).toContain("10 minutes");
    t.clock.advance(10 * 60_000 + 1);
    const late = await t.request("POST", "/delete-account/confirm", { body: { token: deleteToken } });
    expect(late.status).toBe(400);
    expect((await late.json()).code).toBe("INVALID_TOKEN");
    expect(await t.store.users.findById(userId)).not.toBeNull();
  });

  it("links to deleteAccount.callbackUrlOverride on another origin", async () => {
    const t = createTestAuth({ deleteAccount: { callbackUrlOverride: "https://accounts.example/confirm-delete" } });
    const { token } = await t.signUp("ada@example.com");
    const deleteToken = await requestDeletion(t, token, "ada@example.com");
    await t.settle();
    expect(t.emails.last()!.text).toContain(`https://accounts.example/confirm-delete?token=${deleteToken}`);
  });

  it("reports a sender failure as 500 without deleting anything or leaking the link", async () => {
    const failing = {
      async send() {
        throw new Error("smtp down");
      },
    };
    const t = createTestAuth({ email: { sender: failing } });
    const { token, userId } = await t.signUp("ada@example.com");
    const res = await t.request("POST", "/delete-account/request", { headers: bearer(token), body: {} });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.code).toBe("INTERNAL_ERROR");
    expect(JSON.stringify(body)).not.toContain(t.auth.getOtp("ada@example.com")!);
    expect(await t.store.users.findById(userId)).not.toBeNull();
  });

  it("a new request invalidates the previous token", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com");
    const first = await requestDeletion(t, token, "ada@example.com");
    const second = await requestDeletion(t, token, "ada@example.com");
    expect(second).not.toBe(first);
    expect((await t.request("POST", "/delete-account/confirm", { body: { token: first } })).status).toBe(400);
    expect(await t.store.users.findById(userId)).not.toBeNull();
    expect((await t.request("POST", "/delete-account/confirm", { body: { token: second } })).status).toBe(200);
  });
});
