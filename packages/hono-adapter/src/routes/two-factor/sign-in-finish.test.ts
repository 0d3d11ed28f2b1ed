import { describe, expect, it } from "vitest";
import { emailOtp, magicLink } from "@latchkey/core";
import { BASE_URL } from "../../../test/test-auth.ts";
import { codeAt, codeOf, enabledUser, ip, PASSWORD } from "./fixtures.ts";
import { EMAIL, type Challenge, sessionCount, signIn, nextCode, verify } from "./sign-in-fixture.ts";

describe("a sign-in of a user with two-factor on stops before the session", () => {
  it("a pending sign-in expires after 5 minutes", async () => {
    const s = await enabledUser();
    const { twoFactorToken } = (await (await signIn(s)).json()) as Challenge;
    s.t.clock.advance(5 * 60_000);
    const res = await verify(s, { code: codeAt(s.setup.secret, s.t.clock.now()), twoFactorToken });
    expect(res.status).toBe(401);
    expect(await codeOf(res)).toBe("INVALID_TWO_FACTOR_SIGN_IN");
    expect(await sessionCount(s)).toBe(1);
  });

  it("a password change between the steps ends the pending sign-in", async () => {
    const s = await enabledUser();
    const { twoFactorToken } = (await (await signIn(s)).json()) as Challenge;
    const changed = await s.post("/change-password", {
      currentPassword: PASSWORD,
      newPassword: "a brand new password",
    });
    expect(changed.status).toBe(200);
    const res = await verify(s, { code: nextCode(s), twoFactorToken });
    expect(res.status).toBe(401);
    expect(await codeOf(res)).toBe("INVALID_TWO_FACTOR_SIGN_IN");
  });

  it("a recovery code finishes it once; two requests for one pending sign-in get one session", async () => {
    const s = await enabledUser();
    const before = await sessionCount(s);
    const { twoFactorToken } = (await (await signIn(s)).json()) as Challenge;
    const code = s.setup.recoveryCodes[0]!;
    const [a, b] = await Promise.all([
      s.t.request("POST", "/two-factor/verify-recovery-code", { body: { code, twoFactorToken }, ip: ip() }),
      verify(s, { code: nextCode(s), twoFactorToken }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 401]);
    expect(await sessionCount(s)).toBe(before + 1);

    const again = (await (await signIn(s)).json()) as Challenge;
    const used = await s.t.request("POST", "/two-factor/verify-recovery-code", {
      body: { code: s.setup.recoveryCodes[1], twoFactorToken: again.twoFactorToken },
      ip: ip(),
    });
    expect(used.status).toBe(200);
    expect(s.events.filter((e) => e.type === "RecoveryCodeUsed").at(-1)).toMatchObject({ userId: s.userId });
    const third = (await (await signIn(s)).json()) as Challenge;
    const spent = await s.t.request("POST", "/two-factor/verify-recovery-code", {
      body: { code: s.setup.recoveryCodes[1], twoFactorToken: third.twoFactorToken },
      ip: ip(),
    });
    expect(spent.status).toBe(400);
    expect(await codeOf(spent)).toBe("INVALID_TWO_FACTOR_CODE");
  });

  it("emailed codes and magic links stop at the second step too", async () => {
    const s = await enabledUser({}, { plugins: [emailOtp(), magicLink()] });
    // Verified: the first proof of an unverified mailbox removes what the registrant set up, second factor included.
    await s.t.store.users.update(s.userId, { emailVerified: true, updatedAt: new Date(s.t.clock.now()) });
    const before = await sessionCount(s);
    await s.t.request("POST", "/email-otp/send-verification-otp", {
      body: { email: EMAIL, purpose: "sign-in" },
      ip: ip(),
    });
    await s.t.settle();
    const otp = s.t.auth.getOtp(EMAIL)!;
    const byCode = await s.t.request("POST", "/sign-in/email-otp", { body: { email: EMAIL, otp }, ip: ip() });
    expect(byCode.status).toBe(200);
    const pending = (await byCode.json()) as Challenge;
    expect(pending.twoFactorRequired).toBe(true);

    await s.t.request("POST", "/sign-in/magic-link", { body: { email: EMAIL }, ip: ip() });
    await s.t.settle();
    const link = new URL(/https:\/\/\S+/.exec(s.t.emails.last(EMAIL)!.text)![0]);
    const byLink = await s.t.request("POST", "/magic-link/verify", {
      body: { token: link.searchParams.get("token") },
      ip: ip(),
    });
    expect(byLink.status).toBe(200);
    expect(await byLink.json()).toMatchObject({ twoFactorRequired: true, callbackURL: `${BASE_URL}/` });
    expect(await sessionCount(s)).toBe(before);

    const done = await verify(s, { code: nextCode(s), twoFactorToken: pending.twoFactorToken });
    expect(done.status).toBe(200);
    expect(s.events.filter((e) => e.type === "UserSignedIn")).toMatchObject([{ method: "email-otp" }]);
  });
});

describe("pre-account hijacking", () => {
  it("the first proof of an unverified mailbox removes a second factor set up before it", async () => {
    // Whoever registered the address (and switched two-factor on) never showed they own it: the owner's emailed
    // code must sign them in, not stop at the registrant's authenticator.
    const s = await enabledUser({}, { plugins: [emailOtp()] });
    await s.t.request("POST", "/email-otp/send-verification-otp", {
      body: { email: EMAIL, purpose: "sign-in" },
      ip: ip(),
    });
    await s.t.settle();
    const otp = s.t.auth.getOtp(EMAIL)!;
    const res = await s.t.request("POST", "/sign-in/email-otp", { body: { email: EMAIL, otp }, ip: ip() });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user: { id: s.userId, emailVerified: true } });
    expect(await s.record()).toBeNull();
    expect(s.events.find((e) => e.type === "TwoFactorDisabled")).toMatchObject({ method: "email-proven" });
  });
});
