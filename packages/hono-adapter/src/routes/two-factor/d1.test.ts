import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { drizzleStore, type D1DatabaseBinding } from "@latchkey/drizzle-store/d1";
import { migratedD1 } from "../../../test/d1-binding.ts";
import { BASE_URL } from "../../../test/test-auth.ts";
import { testStoreKind } from "../../../test/test-stores.ts";
import { codeAt, codeOf, DAY, enabledUser, ip, PASSWORD, signedIn } from "./fixtures.ts";

// The second factor's time-bound rules on the D1 store (a Miniflare D1 binding, from Node, with the test clock):
// workerd's own suite (examples/cloudflare-workers) runs the races across two instances, but cannot move the clock.
// The file pins its store, so it runs once, in the memory project.

const EMAIL = "ada@example.com";
const TRUST_COOKIE = "__Host-latchkey.trusted-device";
// Children first: D1 enforces foreign keys.
const TABLES = [
  "sessions",
  "accounts",
  "api_keys",
  "verifications",
  "two_factor",
  "audit_events",
  "counters",
  "jwks",
  "users",
];

let d1: Awaited<ReturnType<typeof migratedD1>> | undefined;
let binding: D1DatabaseBinding;
beforeAll(async () => {
  d1 = await migratedD1("two-factor-http");
  binding = d1.binding;
});
afterAll(async () => {
  await d1?.dispose();
});
// Every test signs up the same address: each starts from empty tables.
beforeEach(async () => {
  for (const table of TABLES) await binding.prepare(`DELETE FROM ${table}`).run();
});

const onD1 = () => ({ store: drizzleStore({ binding }) });

type Challenge = { twoFactorRequired?: true; twoFactorToken?: string };

describe.skipIf(testStoreKind() !== "memory")("two-factor over HTTP on the D1 store", () => {
  it("a code's step and every earlier one are spent; the previous and next steps count only within window", async () => {
    const s = await enabledUser({ window: 1 }, onD1());
    // Three steps later: the step two back is outside the window, the previous one inside it.
    s.t.clock.advance(90_000);
    const pendingToken = async () =>
      (
        (await (
          await s.t.request("POST", "/sign-in/email", { body: { email: EMAIL, password: PASSWORD }, ip: ip() })
        ).json()) as Challenge
      ).twoFactorToken!;
    const verify = (token: string, steps: number) =>
      s.t.request("POST", "/two-factor/verify", {
        body: { code: codeAt(s.setup.secret, s.t.clock.now(), steps), twoFactorToken: token },
        ip: ip(),
      });
    const first = await pendingToken();
    expect(await codeOf(await verify(first, -2))).toBe("INVALID_TWO_FACTOR_CODE");
    expect((await verify(first, -1)).status).toBe(200);
    const second = await pendingToken();
    // The previous step is spent now, and so is the current one's predecessor; two ahead is outside the window.
    expect(await codeOf(await verify(second, -1))).toBe("INVALID_TWO_FACTOR_CODE");
    expect(await codeOf(await verify(second, 2))).toBe("INVALID_TWO_FACTOR_CODE");
    expect((await verify(second, 1)).status).toBe(200);
    expect((await s.record())?.lastStep).toBe(Math.floor(s.t.clock.now() / 30_000) + 1);
  });

  it("a pending sign-in replayed, or used after its 5 minutes, is refused", async () => {
    const s = await enabledUser({}, onD1());
    const signIn = async () =>
      (
        (await (
          await s.t.request("POST", "/sign-in/email", { body: { email: EMAIL, password: PASSWORD }, ip: ip() })
        ).json()) as Challenge
      ).twoFactorToken!;
    const token = await signIn();
    s.t.clock.advance(30_000);
    const code = codeAt(s.setup.secret, s.t.clock.now());
    const done = await s.t.request("POST", "/two-factor/verify", { body: { code, twoFactorToken: token }, ip: ip() });
    expect(done.status).toBe(200);
    const replay = await s.t.request("POST", "/two-factor/verify", {
      body: { code: codeAt(s.setup.secret, s.t.clock.now(), 1), twoFactorToken: token },
      ip: ip(),
    });
    expect(replay.status).toBe(401);
    expect(await codeOf(replay)).toBe("INVALID_TWO_FACTOR_SIGN_IN");
    const late = await signIn();
    s.t.clock.advance(5 * 60_000 + 1_000);
    const expired = await s.t.request("POST", "/two-factor/verify", {
      body: { code: codeAt(s.setup.secret, s.t.clock.now()), twoFactorToken: late },
      ip: ip(),
    });
    expect(expired.status).toBe(401);
    expect(await codeOf(expired)).toBe("INVALID_TWO_FACTOR_SIGN_IN");
  });

  it("enable without a fresh session (and no password) is refused and writes nothing", async () => {
    const s = await signedIn({}, onD1());
    s.t.clock.advance(2 * DAY);
    const stale = await s.t.request("POST", "/two-factor/enable", { body: {}, headers: s.headers, ip: ip() });
    expect(stale.status).toBe(403);
    expect(await codeOf(stale)).toBe("SESSION_NOT_FRESH");
    expect(await s.record()).toBeNull();
  });

  it("disable without a code is refused: two-factor stays on", async () => {
    const s = await enabledUser({}, onD1());
    const res = await s.post("/two-factor/disable", { password: PASSWORD });
    expect(res.status).toBe(400);
    expect((await s.record())?.enabled).toBe(true);
  });

  it("a trusted device's cookie is refused after a password reset", async () => {
    const s = await enabledUser({ trustDeviceFor: "30d" }, onD1());
    await s.t.store.users.update(s.userId, { emailVerified: true, updatedAt: new Date(s.t.clock.now()) });
    const first = (await (
      await s.t.request("POST", "/sign-in/email", { body: { email: EMAIL, password: PASSWORD }, ip: ip() })
    ).json()) as Challenge;
    s.t.clock.advance(30_000);
    const done = await s.t.request("POST", "/two-factor/verify", {
      body: { code: codeAt(s.setup.secret, s.t.clock.now()), twoFactorToken: first.twoFactorToken, trustDevice: true },
      headers: { origin: BASE_URL },
      ip: ip(),
    });
    expect(done.status).toBe(200);
    const trust = done.headers
      .getSetCookie()
      .find((c) => c.startsWith(`${TRUST_COOKIE}=`))!
      .split(";")[0]!;
    const fromDevice = (password: string) =>
      s.t.request("POST", "/sign-in/email", {
        body: { email: EMAIL, password },
        headers: { origin: BASE_URL, cookie: trust },
        ip: ip(),
      });
    expect(await (await fromDevice(PASSWORD)).json()).toMatchObject({ user: { id: s.userId } });
    await s.t.request("POST", "/request-password-reset", { body: { email: EMAIL }, ip: ip() });
    await s.t.settle();
    const token = s.t.auth.getOtp(EMAIL)!;
    const newPassword = "a reset password here";
    expect((await s.t.request("POST", "/reset-password", { body: { token, newPassword }, ip: ip() })).status).toBe(200);
    expect(await (await fromDevice(newPassword)).json()).toMatchObject({ twoFactorRequired: true });
  });
});
