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

describe("network-aware buckets (issue 42)", () => {
  function limiter(ipless?: "shared") {
    const database = memoryStore();
    const config = resolveConfig({
      secret: "s".repeat(32),
      database,
      baseUrl: "https://app.example",
      rateLimit: ipless ? { ipless } : {},
    });
    const rl = new RateLimiter(config, database, createTestClock());
    rl.register("/sign-in/email", { window: "1m", max: 10 });
    return rl;
  }
  const outcome = (rl: RateLimiter, ip: string) =>
    rl.check(ip, "/sign-in/email", { global: false }).then(
      () => "ok",
      (e: AuthError) => e.message,
    );

  it("one IPv6 /48 spends 6 x the rule whatever its /64s; another /48 is untouched", async () => {
    const rl = limiter();
    const results: string[] = [];
    for (let a = 0; a < 60; a++)
      for (let i = 0; i < 10; i++) results.push(await outcome(rl, `2001:db8:77:${(a + 1).toString(16)}::1`));
    expect(results.filter((r) => r === "ok")).toHaveLength(60);
    expect(results.filter((r) => r.startsWith("Too many requests from this network"))).toHaveLength(540);
    expect(await outcome(rl, "2001:db8:78:1::1")).toBe("ok");
  });

  it("an address over its own rule spends none of its network's budget; a /24 counts like a /48", async () => {
    const rl = limiter();
    for (let i = 0; i < 100; i++) await outcome(rl, "203.0.113.1");
    // 10 of the 100 were admitted and counted against 203.0.113.0/24: 50 remain for the neighbours.
    const neighbours: string[] = [];
    for (let a = 2; a < 12; a++) for (let i = 0; i < 6; i++) neighbours.push(await outcome(rl, `203.0.113.${a}`));
    expect(neighbours.filter((r) => r === "ok")).toHaveLength(50);
    expect(await outcome(rl, "203.0.114.1")).toBe("ok");
  });

  it("text that is not an address is an unknown client", async () => {
    expect(await outcome(limiter(), "junk")).toMatch(/^The server cannot tell clients apart/);
    const rl = limiter("shared");
    for (let i = 0; i < 10; i++) expect(await outcome(rl, `junk-${i}`)).toBe("ok");
    expect(await outcome(rl, "another junk")).toMatch(/^Too many requests from this address/);
  });
});
