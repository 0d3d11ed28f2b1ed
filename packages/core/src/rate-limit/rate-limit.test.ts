import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { resolveConfig, type AuthOptions } from "../auth/options.ts";
import { AuthConfigError, AuthError } from "../errors/errors.ts";
import { createTestClock } from "../ports/clock.ts";
import { AuthEvents } from "../kernel/events.ts";
import type { CounterStore } from "../ports/store.ts";
import { ipBucket, Lockout, RateLimiter } from "./rate-limit.ts";

describe("ipBucket", () => {
  it("keeps IPv4 and buckets IPv6 by /64 whatever the notation", () => {
    expect(ipBucket("203.0.113.9")).toBe("203.0.113.9");
    expect(ipBucket("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(ipBucket("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(ipBucket("2001:0DB8:0001:0002:ffff:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(ipBucket("[2001:db8::1]")).toBe("2001:db8:0:0::/64");
    expect(ipBucket("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(ipBucket("::1")).toBe("0:0:0:0::/64");
  });
});

describe("RateLimiter.register", () => {
  function limiter(rules: NonNullable<AuthOptions["rateLimit"]>["rules"] = {}) {
    const database = memoryStore();
    const config = resolveConfig({
      secret: "s".repeat(32),
      database,
      baseUrl: "https://app.example",
      rateLimit: { rules },
    });
    return new RateLimiter(config, database, createTestClock());
  }

  it("applies the declared default, an override of it, or nothing when an override turns it off", async () => {
    const plain = limiter();
    expect(plain.register("/send", { window: "1m", max: 2 })).toEqual({ windowMs: 60_000, max: 2 });
    expect(plain.register("/read")).toBeUndefined();
    await plain.check("203.0.113.1", "/send", { global: false });
    await plain.check("203.0.113.1", "/send", { global: false });
    const third = await plain.check("203.0.113.1", "/send", { global: false }).catch((e: AuthError) => e);
    expect(third).toBeInstanceOf(AuthError);
    expect((third as AuthError).code).toBe("RATE_LIMITED");

    const overridden = limiter({ "/send": { window: "5m", max: 1 }, "/off": false });
    expect(overridden.register("/send", { window: "1m", max: 2 })).toEqual({ windowMs: 300_000, max: 1 });
    expect(overridden.register("/off", { window: "1m", max: 2 })).toBe(false);
    expect(overridden.ruleFor("/off")).toBe(false);
    for (let i = 0; i < 5; i++) await overridden.check("203.0.113.1", "/off", { global: false });
  });

  it("names a bad default like a bad option", () => {
    const error = (() => {
      try {
        limiter().register("/send", { window: "1m", max: 0 });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AuthConfigError);
    expect((error as AuthConfigError).field).toBe('rateLimit.rules["/send"].max');
  });
});

describe("Lockout.assertNotLocked", () => {
  /** A lockout over the memory store whose counter calls are recorded; `peekMany: false` takes the method away. */
  function lockout(withPeekMany: boolean) {
    const database = memoryStore();
    const calls: string[] = [];
    const inner = database.counters;
    const counters: CounterStore = {
      ...inner,
      peek: (key, now) => {
        calls.push("peek");
        return inner.peek(key, now);
      },
      peekMany: withPeekMany
        ? (keys, now) => {
            calls.push(`peekMany(${keys.length})`);
            return inner.peekMany!(keys, now);
          }
        : undefined,
    };
    const store = { ...database, counters };
    const config = resolveConfig({ secret: "s".repeat(32), database: store, baseUrl: "https://app.example" });
    const clock = createTestClock();
    const events = new AuthEvents(() => undefined);
    return { lock: new Lockout(config, store, clock, events), calls, inner, clock };
  }

  it("peeks the lock and the failures in one round trip where the store can, key by key where it cannot", async () => {
    for (const withPeekMany of [true, false]) {
      const { lock, calls, inner, clock } = lockout(withPeekMany);
      const perCheck = withPeekMany ? ["peekMany(2)"] : ["peek", "peek"];
      expect(await lock.assertNotLocked("user:u1")).toBe(0);
      expect(calls).toEqual(perCheck);
      for (let i = 0; i < 3; i++) await inner.hit("fail:user:u1", 60_000, clock.now());
      calls.length = 0;
      expect(await lock.assertNotLocked("user:u1")).toBe(3);
      expect(calls).toEqual(perCheck);
      // At maxFailures (5) the count alone keeps it closed; a lock row closes it whatever the count.
      for (let i = 0; i < 2; i++) await inner.hit("fail:user:u1", 60_000, clock.now());
      await expect(lock.assertNotLocked("user:u1")).rejects.toMatchObject({ code: "ACCOUNT_LOCKED" });
      await inner.hit("lock:user:u2", 60_000, clock.now());
      await expect(lock.assertNotLocked("user:u2")).rejects.toMatchObject({ code: "ACCOUNT_LOCKED" });
    }
  });
});
