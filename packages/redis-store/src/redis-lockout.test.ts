import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthEvents, Lockout, counterBinding, resolveConfig, type CounterStore, type Store } from "@latchkey/core";
import { SERVER_CALL, createTestClock, databaseUnavailable } from "@latchkey/core/internal";
import { startTestRedis, type TestRedisServer } from "../../../test/redis-server.ts";
import { redisCounters } from "./redis-counters.ts";

// Review fix 32.2 on Redis: a lock write lost once (503) must not leave the account open for the rest of the
// window. The count itself refuses past `maxFailures`: the Lua hit that numbers an attempt is the lock.

let server: TestRedisServer;
const started = startTestRedis();
beforeAll(async () => {
  server = await started;
});
afterAll(async () => {
  await server?.stop();
});

const secret = "redis-lockout-secret-0123456789abcdefghij";

describe("account lockout over Redis counters", () => {
  it("one failed lock write does not switch the lockout off: 12 wrong passwords then the right one is still locked", async () => {
    const redis = redisCounters({ url: server.url, keyPrefix: `lockout-${Date.now()}:` });
    // What createAuth does with a counter store: keys are HMACs under the app's secret.
    redis.bind(counterBinding(secret, "https://app.example"));
    let lost = 0;
    const counters: CounterStore = {
      hit: async (key, windowMs, now) => {
        if (key.startsWith("lock:") && lost === 0) {
          lost++;
          throw databaseUnavailable(new Error("lock write lost"));
        }
        return redis.hit(key, windowMs, now);
      },
      peek: (key, now) => redis.peek(key, now),
      delete: (key) => redis.delete(key),
      rename: (from, to) => redis.rename(from, to),
      deleteExpired: (now, limit) => redis.deleteExpired(now, limit),
    };
    try {
      const clock = createTestClock();
      const config = resolveConfig({
        secret,
        baseUrl: "https://app.example",
        database: { users: {}, counters } as unknown as Store,
      });
      const lockout = new Lockout(config, { counters } as unknown as Store, clock, new AuthEvents());
      const outcomes: string[] = [];
      for (let i = 0; i < 12; i++) {
        try {
          const attempt = await lockout.attempt("user:u1", SERVER_CALL);
          // The password was checked and found wrong.
          await lockout.failed(attempt, SERVER_CALL);
          outcomes.push("checked");
        } catch (error) {
          outcomes.push((error as { code?: string }).code ?? "error");
        }
      }
      expect(lost).toBe(1);
      expect(outcomes).toEqual([
        "checked",
        "checked",
        "checked",
        "checked",
        "DATABASE_UNAVAILABLE",
        ...Array(7).fill("ACCOUNT_LOCKED"),
      ]);
      // The right password is refused before it is checked.
      await expect(lockout.attempt("user:u1", SERVER_CALL)).rejects.toMatchObject({ code: "ACCOUNT_LOCKED" });
      expect(await redis.peek("lock:user:u1", clock.now())).not.toBeNull();
    } finally {
      await redis.close();
    }
  });

  it("200 parallel attempts over Redis admit at most maxFailures to the password check", async () => {
    const redis = redisCounters({ url: server.url, keyPrefix: `lockout-par-${Date.now()}:` });
    redis.bind(counterBinding(secret, "https://app.example"));
    try {
      const clock = createTestClock();
      const store = { users: {}, counters: redis } as unknown as Store;
      const config = resolveConfig({
        secret,
        baseUrl: "https://app.example",
        database: store,
      });
      const lockout = new Lockout(config, store, clock, new AuthEvents());
      const admitted = await Promise.all(
        Array.from({ length: 200 }, () =>
          lockout.attempt("user:u2", SERVER_CALL).then(
            () => 1,
            () => 0,
          ),
        ),
      );
      // At least the first is checked (an unusable store would refuse them all); never more than maxFailures.
      const checked = admitted.reduce((a: number, b) => a + b, 0);
      expect(checked).toBeGreaterThanOrEqual(1);
      expect(checked).toBeLessThanOrEqual(5);
    } finally {
      await redis.close();
    }
  });
});
