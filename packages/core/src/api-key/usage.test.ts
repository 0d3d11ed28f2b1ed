import { describe, expect, it } from "vitest";
import type { CounterState } from "../ports/records.ts";
import type { CounterStore } from "../ports/store.ts";
import { readApiKeyUsage, USAGE_PEEK_CONCURRENCY } from "./usage.ts";

const DAY = 86_400_000;

/** A counters port without peekMany whose peeks resolve only when released, recording how many are in flight. */
function slowCounters() {
  let inFlight = 0;
  let most = 0;
  let peeks = 0;
  const counters = {
    async peek(key: string): Promise<CounterState | null> {
      peeks++;
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return key.endsWith(":valid") ? { count: 2, resetAt: Number.MAX_SAFE_INTEGER } : null;
    },
  } as unknown as CounterStore;
  return { counters, stats: () => ({ most, peeks }) };
}

describe("readApiKeyUsage", () => {
  it("uses one peekMany for every day and outcome when the port has it", async () => {
    const asked: string[][] = [];
    const counters = {
      peek: () => Promise.reject(new Error("peek must not be called")),
      peekMany: async (keys: readonly string[]) => {
        asked.push([...keys]);
        return keys.map((k) => (k.endsWith(":RATE_LIMITED") ? { count: 1, resetAt: Number.MAX_SAFE_INTEGER } : null));
      },
    } as unknown as CounterStore;
    const days = await readApiKeyUsage(counters, "k_1", 90, 100 * DAY);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toHaveLength(90 * 7);
    expect(days).toHaveLength(90);
    expect(days[89]).toEqual({ date: "1970-04-11", valid: 0, refused: { RATE_LIMITED: 1 } });
  });

  it("without peekMany, reads key by key with at most USAGE_PEEK_CONCURRENCY in flight", async () => {
    const { counters, stats } = slowCounters();
    const days = await readApiKeyUsage(counters, "k_1", 90, 100 * DAY);
    expect(days.every((d) => d.valid === 2)).toBe(true);
    expect(stats()).toEqual({ most: USAGE_PEEK_CONCURRENCY, peeks: 90 * 7 });
  });
});
