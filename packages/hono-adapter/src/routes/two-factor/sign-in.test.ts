import { describe, expect, it } from "vitest";
import { emailOtp, hashSecret, magicLink, twoFactor } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { BASE_URL, bearer, createTestAuth } from "../../../test/test-auth.ts";
import { storesForTestRun } from "../../../test/test-stores.ts";
import { codeAt, codeOf, DAY, enabledUser, ip, PASSWORD } from "./fixtures.ts";

const EMAIL = "ada@example.com";
const PENDING_COOKIE = "__Host-latchkey.two-factor";
const TRUST_COOKIE = "__Host-latchkey.trusted-device";

type Enabled = Awaited<ReturnType<typeof enabledUser>>;
type Challenge = { twoFactorRequired: true; expiresAt: string; twoFactorToken?: string };

/** The value an answer's cookie `name` sets (null when it sets none; "" when it clears it). */
function cookieOf(res: Response, name: string): string | null {
  const found = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  return found === undefined ? null : found.slice(name.length + 1, found.indexOf(";"));
}

/** How many live sessions the user has (read, not removed). */
async function sessionCount(s: Enabled): Promise<number> {
  return (await s.t.store.sessions.listByUser(s.userId)).length;
}

/** A password sign-in as a server or native app does it (no Origin): tokens come in the body. */
function signIn(s: Enabled, headers: Record<string, string> = {}, password = PASSWORD) {
  return s.t.request("POST", "/sign-in/email", { body: { email: EMAIL, password }, headers, ip: ip() });
}

/** The next step's code: every step at or before the one that enabled two-factor is spent. */
function nextCode(s: Enabled): string {
  s.t.clock.advance(30_000);
  return codeAt(s.setup.secret, s.t.clock.now());
}

const verify = (s: Enabled, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  s.t.request("POST", "/two-factor/verify", { body, headers, ip: ip() });

describe("a sign-in of a user with two-factor on stops before the session", () => {
  it("password: twoFactorRequired and a pending sign-in, no session; the right code finishes it once", async () => {
    const s = await enabledUser();
    const before = await sessionCount(s);
    const res = await signIn(s);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Challenge;
    expect(Object.keys(body).sort()).toEqual(["expiresAt", "twoFactorRequired", "twoFactorToken"]);
    expect(body.twoFactorRequired).toBe(true);
    expect(Date.parse(body.expiresAt) - s.t.clock.now()).toBe(5 * 60_000);
    expect(cookieOf(res, "__Host-latchkey.session")).toBeNull();
    expect(cookieOf(res, PENDING_COOKIE)).toBe(body.twoFactorToken);
    expect(await sessionCount(s)).toBe(before);
    // Only the token's hash is stored, as a verification row of the user.
    const row = await s.t.store.verifications.findByValueHash(hashSecret(body.twoFactorToken!));
    expect(row).toMatchObject({ userId: s.userId, attemptCount: 0 });
    expect(JSON.stringify(row)).not.toContain(body.twoFactorToken);
    expect(s.events.filter((e) => e.type === "UserSignedIn")).toHaveLength(0);

    const done = await verify(s, { code: nextCode(s), twoFactorToken: body.twoFactorToken });
    expect(done.status).toBe(200);
    const signed = (await done.json()) as { user: { id: string }; credentials: { token: string } };
    expect(signed.user.id).toBe(s.userId);
    expect(await s.t.store.sessions.findByTokenHash(hashSecret(signed.credentials.token))).not.toBeNull();
    expect(await sessionCount(s)).toBe(before + 1);
    expect(cookieOf(done, PENDING_COOKIE)).toBe("");
    expect(s.events.filter((e) => e.type === "UserSignedIn")).toMatchObject([{ userId: s.userId, method: "password" }]);

    // Spent: the same pending sign-in, even with a fresh right code, is over.
    const replay = await verify(s, { code: nextCode(s), twoFactorToken: body.twoFactorToken });
    expect(replay.status).toBe(401);
    expect(await codeOf(replay)).toBe("INVALID_TWO_FACTOR_SIGN_IN");
    expect(await sessionCount(s)).toBe(before + 1);
  });

  it("a browser gets the pending sign-in as an HttpOnly cookie only, and finishes it with that cookie", async () => {
    const s = await enabledUser();
    const res = await signIn(s, { origin: BASE_URL });
    const body = (await res.json()) as Challenge;
    expect(body).toEqual({ twoFactorRequired: true, expiresAt: body.expiresAt });
    const pending = cookieOf(res, PENDING_COOKIE)!;
    expect(res.headers.getSetCookie().find((c) => c.startsWith(PENDING_COOKIE))).toMatch(
      /HttpOnly; SameSite=Lax; Secure/,
    );
    const headers = { origin: BASE_URL, cookie: `${PENDING_COOKIE}=${pending}` };
    const done = await verify(s, { code: nextCode(s) }, headers);
    expect(done.status).toBe(200);
    expect(cookieOf(done, "__Host-latchkey.session")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("a wrong code counts; the pending sign-in dies after its guesses, and a code of a spent step never works", async () => {
    const s = await enabledUser({}, { lockout: { maxFailures: 20 } });
    const { twoFactorToken } = (await (await signIn(s)).json()) as Challenge;
    const enabledWith = codeAt(s.setup.secret, s.t.clock.now());
    const replayed = await verify(s, { code: enabledWith, twoFactorToken });
    expect(replayed.status).toBe(400);
    expect(await codeOf(replayed)).toBe("INVALID_TWO_FACTOR_CODE");
    for (let i = 0; i < 4; i++) expect((await verify(s, { code: "000000", twoFactorToken })).status).toBe(400);
    expect(await s.t.store.verifications.findByValueHash(hashSecret(twoFactorToken!))).toBeNull();
    const late = await verify(s, { code: nextCode(s), twoFactorToken });
    expect(late.status).toBe(401);
    expect(await codeOf(late)).toBe("INVALID_TWO_FACTOR_SIGN_IN");
    const failed = s.events.filter((e) => e.type === "TwoFactorFailed");
    expect(failed).toHaveLength(5);
    expect(failed[0]).toMatchObject({ userId: s.userId, reason: "invalid-code", action: "sign-in" });
    expect(await sessionCount(s)).toBe(1);
  });

  it("the second-factor lockout covers every pending sign-in of the account", async () => {
    const s = await enabledUser();
    for (let i = 0; i < 5; i++) {
      const { twoFactorToken } = (await (await signIn(s)).json()) as Challenge;
      expect((await verify(s, { code: "000000", twoFactorToken })).status).toBe(400);
    }
    const { twoFactorToken } = (await (await signIn(s)).json()) as Challenge;
    const right = await verify(s, { code: nextCode(s), twoFactorToken });
    expect(right.status).toBe(429);
    expect(await codeOf(right)).toBe("ACCOUNT_LOCKED");
    expect(await sessionCount(s)).toBe(1);
  });

  it("two instances on one store share the lockout: wrong codes sent to either lock the second factor on both", async () => {
    const [first, second] = storesForTestRun(2) ?? [memoryStore(), null];
    const options = { session: { freshAge: "1d" as const }, plugins: [twoFactor()] };
    const a = createTestAuth({ ...options, store: first! });
    const b = createTestAuth({ ...options, store: second ?? first! });
    const { token, userId } = await a.signUp(EMAIL, PASSWORD);
    const headers = bearer(token);
    const setup = (await (await a.request("POST", "/two-factor/enable", { body: {}, headers })).json()) as {
      secret: string;
    };
    expect(
      (
        await a.request("POST", "/two-factor/verify-setup", {
          body: { code: codeAt(setup.secret, a.clock.now()) },
          headers,
        })
      ).status,
    ).toBe(200);
    const pendingOn = async (t: typeof a) => {
      const res = await t.request("POST", "/sign-in/email", { body: { email: EMAIL, password: PASSWORD }, ip: ip() });
      return ((await res.json()) as Challenge).twoFactorToken;
    };
    for (let i = 0; i < 5; i++) {
      const t = i % 2 === 0 ? a : b;
      const res = await t.request("POST", "/two-factor/verify", {
        body: { code: "000000", twoFactorToken: await pendingOn(t) },
        ip: ip(),
      });
      expect(res.status).toBe(400);
    }
    for (const t of [a, b]) t.clock.advance(30_000);
    const right = await b.request("POST", "/two-factor/verify", {
      body: { code: codeAt(setup.secret, b.clock.now()), twoFactorToken: await pendingOn(b) },
      ip: ip(),
    });
    expect(right.status).toBe(429);
    expect(await codeOf(right)).toBe("ACCOUNT_LOCKED");
    expect(await a.store.sessions.listByUser(userId)).toHaveLength(1);
  });

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
