import { describe, expect, it } from "vitest";
import { memoryStore } from "./store.ts";

// Issue 33 item 8: 100k one-off addresses must not stay in memory for good. Ended windows are freed as new keys
// arrive (amortised), without waiting for a sweep.

describe("memory counters", () => {
  it("free ended windows as new keys arrive: 10,000 one-off keys are gone after the next 5,000", async () => {
    const { counters } = memoryStore();
    const t0 = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 10_000; i++) await counters.hit(`rl:/sign-in/email:old-${i}`, 1000, t0);
    const later = t0 + 2000;
    for (let i = 0; i < 5000; i++) await counters.hit(`rl:/sign-in/email:new-${i}`, 60_000, later);
    // What a sweep would still find ended at `later`: none of the old keys are left.
    expect(await counters.deleteExpired(later)).toBe(0);
    // The new keys are live and untouched.
    expect(await counters.peek("rl:/sign-in/email:new-0", later)).toEqual({ count: 1, resetAt: later + 60_000 });
    expect(await counters.deleteExpired(later + 60_000)).toBe(5000);
  });

  it("live windows are never freed, however many keys arrive", async () => {
    const { counters } = memoryStore();
    const t0 = Date.UTC(2026, 0, 1);
    await counters.hit("lock:email:ada@example.com", 900_000, t0);
    for (let i = 0; i < 5000; i++) await counters.hit(`rl:x:${i}`, 1000, t0 + i);
    expect(await counters.peek("lock:email:ada@example.com", t0 + 5000)).toEqual({ count: 1, resetAt: t0 + 900_000 });
  });
});
