import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { resolveConfig } from "../auth/options.ts";
import { createTestClock } from "../ports/clock.ts";
import type { CounterStore, Store } from "../ports/store.ts";
import { SendLimits } from "./send-limits.ts";

// The cooldown (60 s) and the budget (3 per 15 minutes) in one `hitGated` call where the counter store has it,
// else two hits; the answers are the same either way.
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
    email: { resendCooldown: "60s", perRecipient: { window: "15m", max: 3 } },
  });
  const sendLimits = new SendLimits(config, { ...store, counters } as Store, clock);
  return { sendLimits, clock, calls, raw: store.counters };
}

describe("SendLimits.admit", () => {
  it.each([true, false])(
    "hitGated %s: refused resends spend no budget, and the budget ends the sends",
    async (gated) => {
      const { sendLimits, clock, calls, raw } = limits(gated);
      const answers: boolean[] = [];
      for (let i = 0; i < 4; i++) {
        answers.push(await sendLimits.admit("otp-sign-in", "ada@example.com"));
        answers.push(await sendLimits.admit("otp-sign-in", "ada@example.com"));
        clock.advance(61_000);
      }
      expect(answers).toEqual([true, false, true, false, true, false, false, false]);
      // The budget counted the three sends that passed the cooldown and the one it refused, never a refused resend.
      expect(await raw.peek("mail-budget:ada@example.com", clock.now())).toMatchObject({ count: 4 });
      expect(calls[0]).toBe(
        gated
          ? "hitGated mail-cooldown:otp-sign-in:ada@example.com mail-budget:ada@example.com"
          : "hit mail-cooldown:otp-sign-in:ada@example.com",
      );
      expect(calls).toHaveLength(gated ? 8 : 12);
    },
  );
});
