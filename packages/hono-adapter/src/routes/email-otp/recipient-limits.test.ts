import { describe, expect, it } from "vitest";
import { emailOtp } from "@latchkey/core";
import { cookieHeaders, createTestAuth, deviceCookieOf } from "../../../test/test-auth.ts";

// The emails one address receives (docs/email.md, "Send limits"): per requesting network (IPv4 /24, IPv6 /48) a
// cooldown of 60 s per purpose and 5 per 15 minutes; every network together at most 30 an hour; a request carrying
// the account's session (a known device) has an allowance of its own. Issue 33 item 5 bounded mail-bombing; issue
// 42 item 3 and issue 50 item 1: a stranger can no longer spend the owner's share. The test harness turns these
// limits off; here they run with the documented defaults, and the per-IP request rules are off so that only the
// email limits answer (they would only lower a stranger's numbers). Runs on memory, libSQL and PostgreSQL.
const VICTIM = "victim@example.com";
const RATE_LIMITED = { code: "RATE_LIMITED" };

function setup(deviceCookies = false) {
  const t = createTestAuth({
    deviceCookies: { enabled: deviceCookies },
    plugins: [emailOtp()],
    email: { perRecipient: undefined, resendCooldown: undefined, recipientCap: undefined },
    rateLimit: { enabled: false },
  });
  const sentTo = async (to: string) => {
    await t.settle();
    return t.emails.sent.filter((m) => m.to === to).length;
  };
  const signInCode = (ip: string, headers: Record<string, string> = {}) =>
    t.request("POST", "/email-otp/send-verification-otp", {
      body: { email: VICTIM, purpose: "sign-in" },
      ip,
      headers,
    });
  return { t, sentTo, signInCode };
}

/** One request of each kind that emails `email` (issue 42's list). */
const KINDS = (email: string): Array<[path: string, body: Record<string, unknown>]> => [
  ["/email-otp/send-verification-otp", { email, purpose: "sign-in" }],
  ["/email-otp/send-verification-otp", { email, purpose: "email-verification" }],
  ["/email-otp/request-password-reset", { email }],
  ["/request-password-reset", { email }],
  ["/send-verification-email", { email }],
];

describe("email send limits", () => {
  it("the documented defaults are what createAuth resolves", () => {
    const { t } = setup();
    expect(t.auth.core.config.email).toMatchObject({
      perRecipient: { windowMs: 15 * 60_000, max: 5 },
      recipientCap: { windowMs: 60 * 60_000, max: 30 },
      resendCooldownMs: 60_000,
    });
  });

  it("a stranger spends the address's budget from two networks and burns its live code: the victim, from their own network, still gets a code at once", async () => {
    const { t, sentTo, signInCode } = setup();
    await t.signUp(VICTIM);
    t.emails.sent.length = 0;
    // Every kind from two networks, twice (a minute apart): each network's 5 go, the rest are refused.
    const statuses: number[] = [];
    for (const ip of ["203.0.113.5", "198.51.100.5"])
      for (let round = 0; round < 2; round++) {
        for (const [path, body] of KINDS(VICTIM)) statuses.push((await t.request("POST", path, { body, ip })).status);
        t.clock.advance(61_000);
      }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(await sentTo(VICTIM)).toBe(10);
    // Three wrong guesses at the live sign-in code from a third network destroy it.
    const guess = (otp: string) =>
      t.request("POST", "/sign-in/email-otp", { body: { email: VICTIM, otp }, ip: "100.64.0.9" });
    const live = t.auth.getOtp(VICTIM)!;
    const wrong = live === "000000" ? "111111" : "000000";
    expect((await guess(wrong)).status).toBe(400);
    expect((await guess(wrong)).status).toBe(400);
    expect(await (await guess(wrong)).json()).toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    expect((await guess(live)).status).toBe(400);
    // The stranger's networks get no more...
    const more = await signInCode("203.0.113.6");
    expect([more.status, await more.json()]).toEqual([429, expect.objectContaining(RATE_LIMITED)]);
    expect(Number(more.headers.get("retry-after"))).toBeGreaterThan(0);
    // ...and the victim, from their own network, gets a fresh code at once, which signs in.
    const own = await signInCode("192.0.2.44");
    expect([own.status, await own.json()]).toEqual([200, { success: true }]);
    expect(await sentTo(VICTIM)).toBe(11);
    const fresh = t.auth.getOtp(VICTIM)!;
    const signIn = await t.request("POST", "/sign-in/email-otp", {
      body: { email: VICTIM, otp: fresh },
      ip: "192.0.2.44",
    });
    expect(signIn.status).toBe(200);
  });

  it("a stranger alone, from as many networks as they like, sends at most 30 emails an hour to one address; the owner's session still gets one", async () => {
    const { t, sentTo, signInCode } = setup();
    const { token } = await t.signUp(VICTIM);
    t.emails.sent.length = 0;
    // 10 networks (IPv4 /24s and IPv6 /48s), each asking every kind every 5 minutes for the hour after the first send.
    const networks = Array.from({ length: 10 }, (_, n) => (n % 2 ? `2001:db8:${n}::7` : `10.${n}.0.7`));
    const start = t.clock.now();
    let refusedWithRetry = 0;
    for (let minute = 0; minute < 60; minute += 5) {
      for (const ip of networks)
        for (const [path, body] of KINDS(VICTIM)) {
          const res = await t.request("POST", path, { body, ip });
          if (res.status === 429 && Number(res.headers.get("retry-after")) > 0) refusedWithRetry++;
        }
      t.clock.advance(5 * 60_000);
    }
    expect(t.clock.now() - start).toBe(60 * 60_000);
    expect(await sentTo(VICTIM)).toBe(30);
    expect(refusedWithRetry).toBe(12 * 10 * 5 - 30);
    // The next window: the cap is back for everyone.
    t.clock.advance(1000);
    expect((await signInCode("10.0.0.7")).status).toBe(200);
    expect(await sentTo(VICTIM)).toBe(31);
    // While strangers hold the cap spent, the owner's own session (a known device) has its own allowance.
    for (const ip of networks) for (const [path, body] of KINDS(VICTIM)) await t.request("POST", path, { body, ip });
    expect(await sentTo(VICTIM)).toBe(60);
    const stranger = await signInCode("192.0.2.44");
    expect(stranger.status).toBe(429);
    const owner = await signInCode("192.0.2.44", cookieHeaders(token));
    expect([owner.status, await owner.json()]).toEqual([200, { success: true }]);
    expect(await sentTo(VICTIM)).toBe(61);
  });

  it("while strangers hold the cap spent, a request carrying only the owner's device cookie (no session) still gets a code", async () => {
    const { t, sentTo, signInCode } = setup(true);
    const up = await t.request("POST", "/sign-up/email", {
      body: { email: VICTIM, password: "correct horse battery" },
    });
    const device = deviceCookieOf(up);
    expect(device).not.toBeNull();
    await sentTo(VICTIM);
    t.emails.sent.length = 0;
    const networks = Array.from({ length: 10 }, (_, n) => `10.${n}.0.7`);
    for (const ip of networks) for (const [path, body] of KINDS(VICTIM)) await t.request("POST", path, { body, ip });
    expect(await sentTo(VICTIM)).toBe(30);
    expect((await signInCode("192.0.2.44")).status).toBe(429);
    // A device cookie of another account, or a forged one, is a stranger's request.
    const forged = `${device!.slice(0, -3)}AAA`;
    expect((await signInCode("192.0.2.44", { cookie: `__Host-latchkey.device=${forged}` })).status).toBe(429);
    const owner = await signInCode("192.0.2.44", { cookie: `__Host-latchkey.device=${device}` });
    expect([owner.status, await owner.json()]).toEqual([200, { success: true }]);
    expect(await sentTo(VICTIM)).toBe(31);
  });

  it("registered and unknown addresses get the same answers in the same order (refusals included)", async () => {
    const { t, sentTo } = setup();
    await t.signUp(VICTIM);
    t.emails.sent.length = 0;
    const answers = async (email: string, ip: string) => {
      const out: string[] = [];
      for (let i = 0; i < 3; i++) {
        for (const [path, body] of KINDS(email)) {
          const res = await t.request("POST", path, { body, ip });
          out.push(`${res.status} ${JSON.stringify(await res.json())} ${res.headers.get("retry-after")}`);
        }
        t.clock.advance(61_000);
      }
      t.clock.advance(-3 * 61_000);
      return out;
    };
    const registered = await answers(VICTIM, "203.0.113.5");
    const unknown = await answers("nobody@example.com", "203.0.113.5");
    expect(unknown).toEqual(registered);
    expect(registered.filter((a) => a.startsWith("429"))).toHaveLength(10);
    expect(await sentTo(VICTIM)).toBe(5);
    // Only the sign-in code goes to an address without an account (`allowSignUp`).
    expect(await sentTo("nobody@example.com")).toBe(1);
  });

  it("a resend inside the cooldown is 429, sends nothing and keeps the live code working; another network is not held by it", async () => {
    const { t, sentTo, signInCode } = setup();
    expect((await signInCode("198.51.100.1")).status).toBe(200);
    const first = t.auth.getOtp(VICTIM)!;
    const again = await signInCode("198.51.100.2");
    expect([again.status, await again.json()]).toEqual([429, expect.objectContaining(RATE_LIMITED)]);
    expect(again.headers.get("retry-after")).toBe("60");
    expect(await sentTo(VICTIM)).toBe(1);
    expect(t.auth.getOtp(VICTIM)).toBe(first);
    const signIn = await t.request("POST", "/sign-in/email-otp", {
      body: { email: VICTIM, otp: first },
      ip: "198.51.100.3",
    });
    expect(signIn.status).toBe(200);
    // Another network's request is its own: a new code at once.
    expect((await signInCode("192.0.2.9")).status).toBe(200);
    expect(await sentTo(VICTIM)).toBe(2);
    expect(t.auth.getOtp(VICTIM)).not.toBe(first);
  });

  it("racing sends from one network mail one code; refused resends spend none of the budget", async () => {
    const { t, sentTo, signInCode } = setup();
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => signInCode(`198.51.100.${i + 1}`).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(19);
    expect(await sentTo(VICTIM)).toBe(1);
    // The 19 refused resends left 4 sends of the network's budget: one per cooldown, then the budget refuses.
    const later: number[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(61_000);
      later.push((await signInCode(`198.51.100.${i + 1}`)).status);
    }
    expect(later).toEqual([200, 200, 200, 200, 429]);
    expect(await sentTo(VICTIM)).toBe(5);
  });
});
