import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { resolveConfig } from "../auth/options.ts";
import { createTestClock } from "../ports/clock.ts";
import type { CounterStore, Store } from "../ports/store.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { requestingNetwork, SendLimits } from "./send-limits.ts";

// The cooldown (60 s) and the budget (3 per 15 minutes) per requester in one `hitGated` call where the counter
// store has it, else two hits; then the cap per address (8 an hour) for strangers. The answers are the same either way.
function limits(withGated: boolean) {
  const store = memoryStore();
  const calls: string[] = [];
  const { hitGated, ...rest } = store.counters;
  const counters: CounterStore = {
    ...rest,
    hit: (key, windowMs, now) => {
      calls.push(`hit ${key}`);
      return store.counters.hit(key, windowMs, now);
    },
  };
  if (withGated && hitGated)
    counters.hitGated = (gate, next, now) => {
      calls.push(`hitGated ${gate.key} ${next.key}`);
      return hitGated(gate, next, now);
    };
  const clock = createTestClock();
  const config = resolveConfig({
    secret: "s".repeat(32),
    database: store,
    baseUrl: "https://app.example",
    email: { resendCooldown: "60s", perRecipient: { window: "15m", max: 3 }, recipientCap: { window: "1h", max: 8 } },
  });
  const sendLimits = new SendLimits(config, { ...store, counters } as Store, clock);
  return { sendLimits, clock, calls, raw: store.counters };
}

const from = (ip: string | null, knownTo: string | null = null): RequestMeta => ({
  ip,
  userAgent: null,
  knownDevice: (userId) => userId !== null && userId === knownTo,
});

describe("SendLimits.admit", () => {
  it.each([true, false])(
    "hitGated %s: refused resends spend no budget, and the budget ends one network's sends",
    async (gated) => {
      const { sendLimits, clock, calls, raw } = limits(gated);
      const answers: Array<string | null> = [];
      for (let i = 0; i < 4; i++) {
        // Two addresses of one /24: one requester.
        answers.push(
          (await sendLimits.admit("otp-sign-in", "ada@example.com", from(`198.51.100.${i}`), null))?.limit ?? null,
        );
        answers.push(
          (await sendLimits.admit("otp-sign-in", "ada@example.com", from("198.51.100.200"), null))?.limit ?? null,
        );
        clock.advance(61_000);
      }
      expect(answers).toEqual([null, "cooldown", null, "cooldown", null, "cooldown", "per-network", "cooldown"]);
      // The budget counted the three sends that passed the cooldown and the one it refused, never a refused resend;
      // the cap counted only the three that went.
      expect(await raw.peek("mail-budget:net:198.51.100.0/24|ada@example.com", clock.now())).toMatchObject({
        count: 4,
      });
      expect(await raw.peek("mail-cap:ada@example.com", clock.now())).toMatchObject({ count: 3 });
      expect(calls[0]).toBe(
        gated
          ? "hitGated mail-cooldown:otp-sign-in|net:198.51.100.0/24|ada@example.com mail-budget:net:198.51.100.0/24|ada@example.com"
          : "hit mail-cooldown:otp-sign-in|net:198.51.100.0/24|ada@example.com",
      );
      // Per send: the cooldown and the budget (one call, or two), then the cap when both admitted it.
      expect(calls).toHaveLength(gated ? 8 + 3 : 12 + 3);
    },
  );

  it("another network has its own cooldown and budget; the cap bounds every stranger together", async () => {
    const { sendLimits, clock } = limits(true);
    const send = (ip: string) => sendLimits.admit("otp-sign-in", "ada@example.com", from(ip), null);
    // A stranger spends one network's budget; another network still sends at once, cooldown included.
    for (let i = 0; i < 3; i++) {
      expect(await send("203.0.113.9")).toBeNull();
      clock.advance(61_000);
    }
    expect(await send("203.0.113.9")).toMatchObject({ limit: "per-network" });
    expect(await send("192.0.2.10")).toBeNull();
    // The cap (8) counts the sends of every network: 3 + 1 so far, then 4 more networks' first sends, then none.
    const answers = [];
    for (const net of ["10.0.1.1", "10.0.2.1", "10.0.3.1", "10.0.4.1", "10.0.5.1"]) answers.push(await send(net));
    expect(answers.map((a) => a?.limit ?? null)).toEqual([null, null, null, null, "per-address"]);
    expect(answers[4]?.retryAfter).toBe(3600 - 3 * 61);
  });

  it("a request from the account's known device has its own allowance: never counted in, nor refused by, the cap", async () => {
    const { sendLimits, clock, raw } = limits(true);
    for (let n = 1; n <= 8; n++) await sendLimits.admit("otp-sign-in", "ada@example.com", from(`10.0.${n}.1`), "u1");
    expect(await sendLimits.admit("otp-sign-in", "ada@example.com", from("10.0.9.1"), "u1")).toMatchObject({
      limit: "per-address",
    });
    // The owner, from the stranger's own network even: a device of account u1 asking for u1's address.
    const owner = from("10.0.9.1", "u1");
    expect(await sendLimits.admit("otp-sign-in", "ada@example.com", owner, "u1")).toBeNull();
    expect(await raw.peek("mail-cap:ada@example.com", clock.now())).toMatchObject({ count: 9 });
    // Its own cooldown and budget still hold.
    expect(await sendLimits.admit("otp-sign-in", "ada@example.com", owner, "u1")).toMatchObject({ limit: "cooldown" });
    // A session of another account is a stranger to this address.
    expect(
      await sendLimits.admit("password-reset-link", "ada@example.com", from("10.0.9.1", "u2"), "u1"),
    ).toMatchObject({
      limit: "per-address",
    });
  });

  it("the hook is asked for unknown addresses too, with null", async () => {
    const { sendLimits } = limits(true);
    const asked: Array<string | null> = [];
    const meta: RequestMeta = { ip: "192.0.2.1", userAgent: null, knownDevice: (id) => (asked.push(id), true) };
    expect(await sendLimits.admit("otp-sign-in", "nobody@example.com", meta, null)).toBeNull();
    expect(await sendLimits.admit("otp-sign-in", "ada@example.com", meta, "u1")).toBeNull();
    expect(asked).toEqual([null, "u1"]);
  });
});

describe("requestingNetwork", () => {
  it.each([
    ["203.0.113.77", "203.0.113.0/24"],
    [" 203.0.113.7 ", "203.0.113.0/24"],
    ["::ffff:203.0.113.77", "203.0.113.0/24"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1::/48"],
    ["2001:0db8:0001:ffff::1", "2001:db8:1::/48"],
    ["[2001:db8::1]", "2001:db8:0::/48"],
    ["::1", "0:0:0::/48"],
    ["not-an-address", "not-an-address"],
  ])("%s -> %s", (ip, network) => {
    expect(requestingNetwork(ip)).toBe(network);
  });
});
