import { describe, expect, it } from "vitest";
import { hashSecret, twoFactor } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { BASE_URL, bearer, createTestAuth } from "../../../test/test-auth.ts";
import { storesForTestRun } from "../../../test/test-stores.ts";
import { codeAt, codeOf, enabledUser, ip, PASSWORD } from "./fixtures.ts";
import {
  EMAIL,
  PENDING_COOKIE,
  type Challenge,
  cookieOf,
  sessionCount,
  signIn,
  nextCode,
  verify,
} from "./sign-in-fixture.ts";

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
});
