import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { counterBinding, keyedCounters, storedCounterKey } from "./counter-binding.ts";

const SECRET = "counter-binding-secret-0123456789abcdefghij";
const binding = counterBinding(SECRET, "https://app.example");

describe("storedCounterKey", () => {
  it("keeps the kind in clear and hashes the rest; the same key always maps alike, another secret differently", () => {
    const key = storedCounterKey(binding, "fail:email:ada@example.com");
    expect(key).toMatch(/^fail:[A-Za-z0-9_-]{22}$/);
    expect(key).not.toContain("ada");
    expect(storedCounterKey(binding, "fail:email:ada@example.com")).toBe(key);
    expect(storedCounterKey(binding, "fail:email:bob@example.com")).not.toBe(key);
    // The binding remembers the last value it hashed: after another one, the first maps as before.
    expect(storedCounterKey(binding, "lock:email:ada@example.com")).toBe(`lock:${key.slice("fail:".length)}`);
    expect(storedCounterKey(binding, "lock:email:bob@example.com")).toBe(
      `lock:${storedCounterKey(binding, "fail:email:bob@example.com").slice("fail:".length)}`,
    );
    expect(
      storedCounterKey(counterBinding(`${SECRET}x`, "https://app.example"), "fail:email:ada@example.com"),
    ).not.toBe(key);
    expect(storedCounterKey(binding, "no-colon")).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});

describe("keyedCounters", () => {
  it("hits, peeks, renames and deletes under the stored key only", async () => {
    const raw = memoryStore().counters;
    const counters = keyedCounters(raw, binding);
    await counters.hit("lock:email:ada@example.com", 60_000, 0);
    await counters.hit("lock:email:ada@example.com", 60_000, 0);
    expect(await counters.peek("lock:email:ada@example.com", 0)).toMatchObject({ count: 2 });
    expect(await raw.peek("lock:email:ada@example.com", 0)).toBeNull();
    expect(await raw.peek(storedCounterKey(binding, "lock:email:ada@example.com"), 0)).toMatchObject({ count: 2 });
    expect(await counters.peekMany?.(["fail:email:ada@example.com", "lock:email:ada@example.com"], 0)).toEqual([
      null,
      { count: 2, resetAt: 60_000 },
    ]);
    const gated = await counters.hitGated?.(
      { key: "mail-cooldown:otp-sign-in:ada@example.com", windowMs: 60_000, max: 1 },
      { key: "mail-budget:ada@example.com", windowMs: 900_000 },
      0,
    );
    expect(gated).toEqual({ gate: { count: 1, resetAt: 60_000 }, next: { count: 1, resetAt: 900_000 } });
    expect(await raw.peek(storedCounterKey(binding, "mail-budget:ada@example.com"), 0)).toMatchObject({ count: 1 });
    expect(await raw.peek("mail-budget:ada@example.com", 0)).toBeNull();
    await counters.rename("lock:email:ada@example.com", "lock:user:u_1");
    expect(await raw.peek(storedCounterKey(binding, "lock:user:u_1"), 0)).toMatchObject({ count: 2 });
    await counters.delete("lock:user:u_1");
    expect(await counters.peek("lock:user:u_1", 0)).toBeNull();
    // Optional members stay absent where the store has none.
    expect(counters.ping).toBeUndefined();
  });
});
