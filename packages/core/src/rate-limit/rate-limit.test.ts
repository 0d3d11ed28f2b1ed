import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { resolveConfig, type AuthOptions } from "../auth/options.ts";
import { AuthConfigError, AuthError } from "../errors/errors.ts";
import { createTestClock } from "../ports/clock.ts";
import { ipBucket, RateLimiter } from "./rate-limit.ts";

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
