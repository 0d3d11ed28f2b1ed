import { describe, expect, it } from "vitest";
import { BASE_URL } from "../../../test/test-auth.ts";
import { codeAt, DAY, enabledUser, ip, PASSWORD } from "./fixtures.ts";
import { EMAIL, PENDING_COOKIE, TRUST_COOKIE, cookieOf, signIn, nextCode, verify } from "./sign-in-fixture.ts";

describe("trusted devices", () => {
  async function trustedBrowser() {
    const s = await enabledUser({ trustDeviceFor: "30d" });
    // Verified: a reset link would otherwise be the first proof of the mailbox (which removes the second factor).
    await s.t.store.users.update(s.userId, { emailVerified: true, updatedAt: new Date(s.t.clock.now()) });
    const first = await signIn(s, { origin: BASE_URL });
    const pending = cookieOf(first, PENDING_COOKIE)!;
    const done = await verify(
      s,
      { code: nextCode(s), trustDevice: true },
      { origin: BASE_URL, cookie: `${PENDING_COOKIE}=${pending}` },
    );
    expect(done.status).toBe(200);
    const trust = cookieOf(done, TRUST_COOKIE)!;
    expect(done.headers.getSetCookie().find((c) => c.startsWith(TRUST_COOKIE))).toMatch(/Max-Age=2592000; .*HttpOnly/);
    const again = (password = PASSWORD) =>
      signIn(s, { origin: BASE_URL, cookie: `${TRUST_COOKIE}=${trust}` }, password);
    return { ...s, trust, again };
  }

  it("a trusted device signs in without the second step until trustDeviceFor ends", async () => {
    const s = await trustedBrowser();
    const res = await s.again();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user: { id: s.userId } });
    // Another account's sign-in gains nothing from it; a forged one neither.
    const forged = await signIn(s, { origin: BASE_URL, cookie: `${TRUST_COOKIE}=${s.trust.replace(/.$/, "A")}x` });
    expect(await forged.json()).toMatchObject({ twoFactorRequired: true });
    s.t.clock.advance(30 * DAY);
    expect(await (await s.again()).json()).toMatchObject({ twoFactorRequired: true });
  });

  it("signing out everywhere, a password reset and switching two-factor off each end the trust", async () => {
    const everywhere = await trustedBrowser();
    expect((await everywhere.post("/revoke-sessions", {})).status).toBe(200);
    expect(await (await everywhere.again()).json()).toMatchObject({ twoFactorRequired: true });

    const reset = await trustedBrowser();
    await reset.t.request("POST", "/request-password-reset", { body: { email: EMAIL }, ip: ip() });
    await reset.t.settle();
    const token = reset.t.auth.getOtp(EMAIL)!;
    const newPassword = "a reset password here";
    const done = await reset.t.request("POST", "/reset-password", { body: { token, newPassword }, ip: ip() });
    expect(done.status).toBe(200);
    expect(await (await reset.again(newPassword)).json()).toMatchObject({ twoFactorRequired: true });

    const off = await trustedBrowser();
    const signedIn = await off.again();
    const { credentials } = (await signedIn.json()) as { credentials?: { token: string } };
    expect(credentials).toBeUndefined();
    const code = nextCode(off);
    const disabled = await off.post("/two-factor/disable", { password: PASSWORD, code });
    expect(disabled.status).toBe(200);
    // Off: no second step at all. On again with a new key: the old trust is void.
    expect(await (await off.again()).json()).toMatchObject({ user: { id: off.userId } });
    const setup = (await (await off.post("/two-factor/enable", { password: PASSWORD })).json()) as { secret: string };
    expect((await off.post("/two-factor/verify-setup", { code: codeAt(setup.secret, off.t.clock.now()) })).status).toBe(
      200,
    );
    expect(await (await off.again()).json()).toMatchObject({ twoFactorRequired: true });
  });
});
