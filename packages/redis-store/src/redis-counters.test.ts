import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { runCounterConformance } from "@latchkey/store-conformance";
import { AuthConfigError, counterBinding } from "@latchkey/core";
import { isDatabaseUnavailable } from "@latchkey/core/internal";
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

const SECRET = "redis-counters-test-secret-0123456789abcdef";
const bound = (options: Parameters<typeof redisCounters>[0], origin = "https://app.example") => {
  const counters = redisCounters(options);
  counters.bind(counterBinding(SECRET, origin));
  return counters;
};
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => e,
  );

async function rawKeys(pattern = "*"): Promise<string[]> {
  const raw = createClient({ url: server.url });
  await raw.connect();
  try {
    return await raw.keys(pattern);
  } finally {
    await raw.close();
  }
}

runCounterConformance({ name: "redis", createCounters: async () => redisCounters({ url: (await started).url }) });

describe("redisCounters when Redis goes away", () => {
  it("answers DATABASE_UNAVAILABLE at once while Redis is down and recovers by itself", async () => {
    const counters = bound({ url: server.url, keyPrefix: "outage:", connectTimeout: "1s" });
    try {
      expect((await counters.hit("k", 60_000, 1000)).count).toBe(1);
      await server.halt();
      const t0 = Date.now();
      const failure = await failureOf(counters.hit("k", 60_000, 1000));
      expect(isDatabaseUnavailable(failure)).toBe(true);
      // Bound: the connect timeout (1 s) plus 1.5 s of scheduling margin; a refused connection fails sooner.
      expect(Date.now() - t0).toBeLessThan(1000 + 1500);
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
    const counters = bound({ url: "redis://127.0.0.1:1", connectTimeout: 1 });
    try {
      const failure = await failureOf(counters.peek("k", 0));
      expect(isDatabaseUnavailable(failure)).toBe(true);
      expect(isDatabaseUnavailable(await failureOf(counters.ping()))).toBe(true);
    } finally {
      await counters.close();
    }
  });

  it("a hung Redis (SIGSTOP) hangs no command: each ends in DATABASE_UNAVAILABLE within commandTimeout, the connection is replaced, and it answers again after SIGCONT", async () => {
    const commandTimeout = 500; // ms, configured below as "0.5s"
    // Margin for scheduling on a loaded machine; the failure this guards against is a command that never ends.
    const MARGIN_MS = 1500;
    const counters = bound({ url: server.url, keyPrefix: "frozen:", commandTimeout: "0.5s", connectTimeout: "1s" });
    try {
      expect((await counters.hit("rl:x", 60_000, 1000)).count).toBe(1);
      server.freeze();
      try {
        const t0 = Date.now();
        // Commands sent to the frozen server, several at once, and ping (what /health calls).
        const failures = await Promise.all([
          failureOf(counters.hit("rl:x", 60_000, 1000)),
          failureOf(counters.peek("rl:x", 1000)),
          failureOf(counters.delete("rl:y")),
          failureOf(counters.rename("fail:a", "fail:b")),
          failureOf(counters.ping()),
        ]);
        const elapsed = Date.now() - t0;
        for (const failure of failures) expect(isDatabaseUnavailable(failure), String(failure)).toBe(true);
        expect(elapsed).toBeLessThan(commandTimeout + MARGIN_MS);
        // While it stays frozen, later commands end within the bound as well (fresh connection not ready: at once).
        const t1 = Date.now();
        expect(isDatabaseUnavailable(await failureOf(counters.hit("rl:x", 60_000, 1000)))).toBe(true);
        expect(Date.now() - t1).toBeLessThan(commandTimeout + MARGIN_MS);
      } finally {
        server.thaw();
      }
      let recovered = false;
      for (let i = 0; i < 100 && !recovered; i++) {
        recovered = await counters.hit("rl:z", 60_000, 1000).then(
          () => true,
          () => false,
        );
        if (!recovered) await new Promise((r) => setTimeout(r, 100));
      }
      expect(recovered).toBe(true);
      await counters.ping();
    } finally {
      await counters.close();
    }
  });
});

describe("redisCounters keys", () => {
  it("emails and addresses never appear in clear in Redis keys: the identifier is an HMAC under the secret", async () => {
    const counters = bound({ url: server.url });
    try {
      await counters.hit("fail:email:alice@example.com", 60_000, 1000);
      await counters.hit("rl:/sign-in/email:203.0.113.7", 60_000, 1000);
      const namespace = counterBinding(SECRET, "https://app.example").namespace;
      const keys = (await rawKeys(`latchkey:${namespace}:*`)).sort();
      expect(keys).toHaveLength(2);
      for (const k of keys) expect(k).not.toMatch(/alice|example\.com|203\.0\.113|sign-in/);
      expect(keys[0]).toMatch(new RegExp(`^latchkey:${namespace}:fail:[A-Za-z0-9_-]{22}$`));
      expect(keys[1]).toMatch(new RegExp(`^latchkey:${namespace}:rl:[A-Za-z0-9_-]{22}$`));
      // The same identifier always maps to the same key: the count goes on.
      expect((await counters.hit("fail:email:alice@example.com", 60_000, 1000)).count).toBe(2);
    } finally {
      await counters.close();
    }
  });

  it("two apps on one Redis with the default prefix do not share limits", async () => {
    const one = bound({ url: server.url }, "https://one.example");
    const two = bound({ url: server.url }, "https://two.example");
    // Same origin, another secret: another app as well.
    const three = redisCounters({ url: server.url });
    three.bind(counterBinding(`${SECRET}-other`, "https://one.example"));
    try {
      for (let i = 0; i < 3; i++) await one.hit("fail:email:shared@example.com", 60_000, 1000);
      expect((await two.hit("fail:email:shared@example.com", 60_000, 1000)).count).toBe(1);
      expect((await three.hit("fail:email:shared@example.com", 60_000, 1000)).count).toBe(1);
      expect(await two.peek("fail:email:shared@example.com", 1000)).toEqual({ count: 1, resetAt: 61_000 });
    } finally {
      await Promise.all([one.close(), two.close(), three.close()]);
    }
  });

  it("one redisCounters() cannot serve two apps, and refuses to run before createAuth binds it", async () => {
    const counters = bound({ url: server.url });
    const unbound = redisCounters({ url: server.url });
    try {
      expect(() => counters.bind(counterBinding(SECRET, "https://other.example"))).toThrow(AuthConfigError);
      // The same app again (a second createAuth over the same options) is fine.
      counters.bind(counterBinding(SECRET, "https://app.example"));
      await expect(unbound.hit("rl:x", 60_000, 1000)).rejects.toThrow(/createAuth/);
    } finally {
      await Promise.all([counters.close(), unbound.close()]);
    }
  });

  it("a Redis error that is not a connection failure is reported as what it is, not as 503", async () => {
    const counters = bound({ url: server.url, keyPrefix: "wrongtype:" });
    const raw = createClient({ url: server.url });
    await raw.connect();
    try {
      await counters.hit("rl:x", 60_000, 1000);
      const [key] = await raw.keys("wrongtype:rl:*");
      // The key holds a string now: the counter script's HGET answers WRONGTYPE.
      await raw.set(key!, "not a hash");
      const failure = await failureOf(counters.hit("rl:x", 60_000, 1000));
      expect(failure).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(failure)).toBe(false);
      expect((failure as Error).message).toMatch(/^Redis counters: WRONGTYPE/);
    } finally {
      await raw.close();
      await counters.close();
    }
  });
});
