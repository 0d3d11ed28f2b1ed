import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";
import { PASSWORD, send, verify } from "./test-fixtures.ts";

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
    expect(res.headers.get("set-cookie")).toBe(
      `__Host-latchkey.session=${body.credentials.token}; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax; Secure`,
    );
    expect((await t.store.users.findById(userId))!.emailVerified).toBe(true);
    expect((await t.store.sessions.findByTokenHash(hashSecret(body.credentials.token)))!.session.id).toBe(
      body.session.id,
    );
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

  it("junk tokens lock nothing: the delivered link still verifies, and the password is not locked (issue 50)", async () => {
    const t = createTestAuth({ lockout: { maxFailures: 3 } });
    await t.signUp("ada@example.com");
    await send(t, "ada@example.com");
    const token = t.auth.getOtp("ada@example.com")!;
    for (let i = 0; i < 5; i++) expect((await verify(t, "ada@example.com", `${"A".repeat(42)}${i}`)).status).toBe(400);
    expect(
      (await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: PASSWORD } })).status,
    ).toBe(200);
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
    await t.settle();
    const user = await t.store.users.findByEmail("ada@example.com");
    expect(user!.emailVerified).toBe(false);
    await t.settle();
    expect(t.emails.last("ada@example.com")!.text).toContain(`token=${t.auth.getOtp("ada@example.com")}`);

    const again = await t.request("POST", "/sign-up/email", {
      body: { email: "ada@example.com", password: "another password" },
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ success: true });
    await t.settle();
    // No second verification link: the owner gets the existing-account notice instead (sign-up-enumeration.test.ts).
    expect(t.emails.sent.map((m) => m.template)).toEqual(["verification", "existing-account"]);
  });

  it("an unverified user gets 403 EMAIL_NOT_VERIFIED on sign-in (only with the right password); the link signs in and the password set before the proof must be set again", async () => {
    const t = createTestAuth({ emailVerification: { requireVerifiedForSignIn: true } });
    await t.request("POST", "/sign-up/email", { body: { email: "ada@example.com", password: PASSWORD } });
    await t.settle();
    const wrong = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "wrong password!" },
    });
    expect(wrong.status).toBe(401);
    const unverified = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    expect(unverified.status).toBe(403);
    expect((await unverified.json()).code).toBe("EMAIL_NOT_VERIFIED");
    const verified = await verify(t, "ada@example.com", t.auth.getOtp("ada@example.com")!);
    expect(verified.status).toBe(200);
    // Whoever chose that password never proved the mailbox (pre-account hijacking): it went with the proof.
    expect(
      (await t.request("POST", "/sign-in/email", { body: { email: "ada@example.com", password: PASSWORD } })).status,
    ).toBe(401);
    const session = (await verified.json()).credentials.token as string;
    const set = await t.request("POST", "/set-password", {
      headers: { authorization: `Bearer ${session}` },
      body: { newPassword: "a brand new passphrase" },
    });
    expect(set.status).toBe(200);
    expect(
      (
        await t.request("POST", "/sign-in/email", {
          body: { email: "ada@example.com", password: "a brand new passphrase" },
        })
      ).status,
    ).toBe(200);
  });
});
