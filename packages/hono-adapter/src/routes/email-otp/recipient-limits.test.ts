import { describe, expect, it } from "vitest";
import { emailOtp } from "@latchkey/core";
import { createTestAuth, networkIp } from "../../../test/test-auth.ts";

// Issue 33 item 5: the emails one address receives are bounded per recipient, whoever asks and from how many
// addresses, by counts of emails sent. The test harness turns these limits off; here they run with the
// documented defaults (5 per 15 minutes, 60 s between two sends of one purpose).
const DEFAULTS = { perRecipient: { window: "15m", max: 5 }, resendCooldown: "60s" } as const;
const VICTIM = "victim@example.com";

function setup() {
  const t = createTestAuth({ plugins: [emailOtp()], email: DEFAULTS });
  const sentTo = (to: string) => t.emails.sent.filter((m) => m.to === to).length;
  // Background sends settle within a macrotask of the answer.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  return { t, sentTo, settle };
}

/** The four sending routes of the issue, each asked once from `ip`. */
const SENDS: Array<[path: string, body: Record<string, unknown>]> = [
  ["/email-otp/send-verification-otp", { email: VICTIM, purpose: "sign-in" }],
  ["/email-otp/request-password-reset", { email: VICTIM }],
  ["/request-password-reset", { email: VICTIM }],
  ["/send-verification-email", { email: VICTIM }],
];

describe("per-recipient email limits", () => {
  it("the documented defaults are what createAuth resolves", () => {
    const t = createTestAuth({ email: { perRecipient: undefined, resendCooldown: undefined } });
    expect(t.auth.core.config.email).toMatchObject({
      perRecipient: { windowMs: 15 * 60_000, max: 5 },
      resendCooldownMs: 60_000,
    });
  });

  it("100 addresses asking the four sending routes for one recipient send 5 emails in 15 minutes, all answered alike", async () => {
    const { t, sentTo, settle } = setup();
    await t.signUp(VICTIM);
    t.emails.sent.length = 0;
    const statuses = new Set<string>();
    for (let i = 0; i < 100; i++) {
      for (const [path, body] of SENDS) {
        const res = await t.request("POST", path, { body, ip: networkIp(i) });
        statuses.add(`${res.status} ${JSON.stringify(await res.json())}`);
      }
      if (i % 10 === 9) t.clock.advance(61_000);
    }
    await settle();
    // 400 requests over 10 minutes: every answer the usual success, 5 emails in all.
    expect([...statuses]).toEqual(['200 {"success":true}']);
    expect(sentTo(VICTIM)).toBe(5);
    // The window ends: the recipient's budget is back.
    t.clock.advance(5 * 60_000);
    await t.request("POST", "/request-password-reset", { body: { email: VICTIM }, ip: "203.0.113.1" });
    await settle();
    expect(sentTo(VICTIM)).toBe(6);
  });

  it("a resend inside the cooldown answers success, sends nothing and keeps the live code working", async () => {
    const { t, sentTo, settle } = setup();
    const send = (ip: string) =>
      t.request("POST", "/email-otp/send-verification-otp", { body: { email: VICTIM, purpose: "sign-in" }, ip });
    expect((await send("198.51.100.1")).status).toBe(200);
    const first = t.auth.getOtp(VICTIM)!;
    const again = await send("198.51.100.2");
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ success: true });
    await settle();
    expect(sentTo(VICTIM)).toBe(1);
    expect(t.auth.getOtp(VICTIM)).toBe(first);
    // The code the victim holds still signs in: the refused send replaced nothing.
    const signIn = await t.request("POST", "/sign-in/email-otp", {
      body: { email: VICTIM, otp: first },
      ip: "198.51.100.3",
    });
    expect(signIn.status).toBe(200);
    // After the cooldown a new code goes out.
    t.clock.advance(60_000);
    await send("198.51.100.4");
    await settle();
    expect(sentTo(VICTIM)).toBe(2);
    expect(t.auth.getOtp(VICTIM)).not.toBe(first);
  });

  it("resends refused by the cooldown spend none of the budget, and racing sends mail one code", async () => {
    const { t, sentTo, settle } = setup();
    const send = (i: number) =>
      t.request("POST", "/email-otp/send-verification-otp", {
        body: { email: VICTIM, purpose: "sign-in" },
        ip: networkIp(i % 200),
      });
    // 20 at once: one passes the cooldown (and spends one of the 5), the others are refused by it.
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => send(i).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
    for (let i = 0; i < 20; i++) expect((await send(i)).status).toBe(200);
    await settle();
    expect(sentTo(VICTIM)).toBe(1);
    // The 40 refused resends left 4 sends of the budget: one per cooldown, then the budget refuses.
    for (let i = 0; i < 5; i++) {
      t.clock.advance(61_000);
      await send(i);
    }
    await settle();
    expect(sentTo(VICTIM)).toBe(5);
  });

  it("a send refused by the budget leaves the last code valid: an attacker cannot keep code sign-in from working", async () => {
    const { t, sentTo, settle } = setup();
    const send = (i: number) =>
      t.request("POST", "/email-otp/send-verification-otp", {
        body: { email: VICTIM, purpose: "sign-in" },
        ip: networkIp(i + 1),
      });
    for (let i = 0; i < 5; i++) {
      await send(i);
      t.clock.advance(61_000);
    }
    const live = t.auth.getOtp(VICTIM)!;
    const row = await t.store.verifications.findByIdentifier(`otp:sign-in:${VICTIM}`);
    for (let i = 5; i < 20; i++) {
      expect((await send(i)).status).toBe(200);
      t.clock.advance(10_000);
    }
    await settle();
    expect(sentTo(VICTIM)).toBe(5);
    expect(await t.store.verifications.findByIdentifier(`otp:sign-in:${VICTIM}`)).toEqual(row);
    const signIn = await t.request("POST", "/sign-in/email-otp", {
      body: { email: VICTIM, otp: live },
      ip: "203.0.113.7",
    });
    expect(signIn.status).toBe(200);
  });
});
