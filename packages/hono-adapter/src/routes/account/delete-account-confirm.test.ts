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

describe("POST /delete-account/confirm", () => {
  it("deletes with the token alone (no session), clears the cookie, and cannot be replayed", async () => {
    const t = createTestAuth();
    const events = recordEvents(t);
    const ada = await withEverything(t, "ada@example.com");
    const deleteToken = await requestDeletion(t, ada.token, "ada@example.com");
    const res = await t.request("POST", "/delete-account/confirm", { body: { token: deleteToken } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(res.headers.get("set-cookie")).toMatch(/^__Host-latchkey\.session=; Max-Age=0/);
    await expectGone(t, ada, "ada@example.com");
    expect(await t.store.verifications.findByIdentifier(`delete-account:${ada.userId}`)).toBeNull();
    expect(events.filter((e) => e.type === "OtpVerified")).toEqual([
      expect.objectContaining({ purpose: "delete-account", userId: ada.userId }),
    ]);
    expect(events.filter((e) => e.type === "AccountDeleted")).toHaveLength(1);
    const replay = await t.request("POST", "/delete-account/confirm", { body: { token: deleteToken } });
    expect(replay.status).toBe(400);
    expect((await replay.json()).code).toBe("INVALID_TOKEN");
  });

  it("accepts the token with the same user's session (cookie, trusted origin)", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com");
    const deleteToken = await requestDeletion(t, token, "ada@example.com");
    const res = await t.request("POST", "/delete-account/confirm", {
      headers: cookieHeaders(token),
      body: { token: deleteToken },
    });
    expect(res.status).toBe(200);
    expect(await t.store.users.findById(userId)).toBeNull();
  });

  it("a token issued to user A cannot delete user B: it only ever deletes A, and B's session cannot spend it", async () => {
    const t = createTestAuth();
    const a = await t.signUp("a@example.com");
    const b = await t.signUp("b@example.com");
    const tokenA = await requestDeletion(t, a.token, "a@example.com");
    const crossed = await t.request("POST", "/delete-account/confirm", {
      headers: bearer(b.token),
      body: { token: tokenA },
    });
    expect(crossed.status).toBe(400);
    expect((await crossed.json()).code).toBe("INVALID_TOKEN");
    expect(await t.store.users.findById(a.userId)).not.toBeNull();
    expect(await t.store.users.findById(b.userId)).not.toBeNull();
    // Refused without being consumed: A can still use it, and it deletes A only.
    const ok = await t.request("POST", "/delete-account/confirm", { body: { token: tokenA } });
    expect(ok.status).toBe(200);
    expect(await t.store.users.findById(a.userId)).toBeNull();
    expect(await t.store.users.findById(b.userId)).not.toBeNull();
    expect(await t.store.sessions.findByTokenHash(hashSecret(b.token))).not.toBeNull();
  });

  it("refuses tokens of other purposes (a password-reset token cannot confirm a deletion) and garbage", async () => {
    const t = createTestAuth();
    const { userId } = await t.signUp("ada@example.com");
    await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
    const resetToken = t.auth.getOtp("ada@example.com")!;
    for (const token of [resetToken, "x".repeat(43), "short", ""]) {
      const res = await t.request("POST", "/delete-account/confirm", { body: { token } });
      expect(res.status, token).toBe(400);
      expect((await res.json()).code).toBe("INVALID_TOKEN");
    }
    expect((await t.request("POST", "/delete-account/confirm", { body: {} })).status).toBe(400);
    expect(await t.store.users.findById(userId)).not.toBeNull();
    // The reset token survived the attempt.
    expect(
      (await t.request("POST", "/reset-password", { body: { token: resetToken, newPassword: "brand new password" } }))
        .status,
    ).toBe(200);
  });

  it("fails with INVALID_TOKEN once the token expired (clock moved past deleteAccount.expiresIn)", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com");
    const deleteToken = await requestDeletion(t, token, "ada@example.com");
    t.clock.advance(60 * 60_000);
    const res = await t.request("POST", "/delete-account/confirm", { body: { token: deleteToken } });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("INVALID_TOKEN");
    expect(await t.store.users.findById(userId)).not.toBeNull();
  });

  it("10 parallel confirmations with one token delete once: exactly one 200 and one AccountDeleted", async () => {
    const t = createTestAuth({ rateLimit: { enabled: false } });
    const events = recordEvents(t);
    const { token, userId } = await t.signUp("ada@example.com");
    const deleteToken = await requestDeletion(t, token, "ada@example.com");
    const results = await Promise.all(
      Array.from({ length: 10 }, () => t.request("POST", "/delete-account/confirm", { body: { token: deleteToken } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(400)]);
    expect(events.filter((e) => e.type === "AccountDeleted")).toHaveLength(1);
    expect(await t.store.users.findById(userId)).toBeNull();
  });

  it("password deletion racing token deletion: the user goes once", async () => {
    const t = createTestAuth({ rateLimit: { enabled: false } });
    const events = recordEvents(t);
    const { token, userId } = await t.signUp("ada@example.com");
    const deleteToken = await requestDeletion(t, token, "ada@example.com");
    const results = await Promise.all([
      t.request("POST", "/delete-account", { headers: bearer(token), body: { password: PASSWORD } }),
      t.request("POST", "/delete-account/confirm", { body: { token: deleteToken } }),
    ]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(events.filter((e) => e.type === "AccountDeleted")).toHaveLength(1);
    expect(await t.store.users.findById(userId)).toBeNull();
  });
});
