import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCounterConformance } from "@latchkey/store-conformance";
import { isDatabaseUnavailable } from "@latchkey/core";
import { startTestRedis, type TestRedisServer } from "../../../test/redis-server.ts";
import { redisCounters } from "./redis-counters.ts";

// A real redis-server: a run without one fails here (it never skips).
let server: TestRedisServer;
const started = startTestRedis();
beforeAll(async () => {
  server = await started;
});
afterAll(async () => {
  await server?.stop();
});

runCounterConformance({ name: "redis", createCounters: async () => redisCounters({ url: (await started).url }) });

describe("redisCounters when Redis goes away", () => {
  it("answers DATABASE_UNAVAILABLE at once while Redis is down and recovers by itself", async () => {
    // The failure must come within the configured command timeout (plus 500 ms of scheduling margin).
    const timeoutS = 2;
    const counters = redisCounters({
      url: server.url,
      keyPrefix: "outage:",
      connectTimeout: timeoutS,
      commandTimeout: timeoutS,
    });
    try {
      expect((await counters.hit("k", 60_000, 1000)).count).toBe(1);
      await server.halt();
      const t0 = Date.now();
      const failure = await counters.hit("k", 60_000, 1000).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isDatabaseUnavailable(failure)).toBe(true);
      expect(Date.now() - t0).toBeLessThan(timeoutS * 1000 + 500);
      await server.resume();
      let recovered = false;
      for (let i = 0; i < 50 && !recovered; i++) {
        recovered = await counters.hit("k2", 60_000, 1000).then(
          () => true,
          () => false,
        );
        if (!recovered) await new Promise((r) => setTimeout(r, 100));
      }
      expect(recovered).toBe(true);
    } finally {
      await counters.close();
    }
  });

  it("a server that was never reachable: DATABASE_UNAVAILABLE within the connect timeout", async () => {
    const counters = redisCounters({ url: "redis://127.0.0.1:1", connectTimeout: 1 });
    try {
      const failure = await counters.peek("k", 0).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isDatabaseUnavailable(failure)).toBe(true);
    } finally {
      await counters.close();
    }
  });
});
