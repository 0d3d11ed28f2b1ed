import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthConfigError, type CacheCarrier } from "@latchkey/core";
import { startTestRedis, type TestRedisServer } from "../../../test/redis-server.ts";
import { redisCacheCarrier } from "./redis-cache-carrier.ts";

let redis: TestRedisServer;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const CEILING_MS = 15_000;
async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A started carrier and what it reported. */
function listen(carrier: CacheCarrier) {
  const heard: string[] = [];
  const states: string[] = [];
  carrier.start({
    message: (payload) => void heard.push(payload),
    up: () => void states.push("up"),
    down: () => void states.push("down"),
  });
  return { heard, states, up: () => states.at(-1) === "up" };
}

describe("redisCacheCarrier", () => {
  it("delivers a publication to every carrier on the channel, and never its own probes", async () => {
    const one = redisCacheCarrier({ url: redis.url, heartbeat: 0.2 });
    const two = redisCacheCarrier({ url: redis.url, heartbeat: 0.2 });
    const a = listen(one);
    const b = listen(two);
    try {
      await until("both listen", () => a.up() && b.up());
      await one.publish("s:session-1\nu:user-1");
      await until("both hear it", () => a.heard.length > 0 && b.heard.length > 0);
      expect(b.heard).toEqual(["s:session-1\nu:user-1"]);
      expect(a.heard).toEqual(["s:session-1\nu:user-1"]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it("reports down when Redis goes away, and up again only once its probe comes back", async () => {
    const carrier = redisCacheCarrier({ url: redis.url, heartbeat: 0.2 });
    const seen = listen(carrier);
    try {
      await until("listening", seen.up);
      await redis.halt();
      await until("down", () => seen.states.at(-1) === "down");
      await expect(carrier.publish("s:x")).rejects.toThrow();
      await redis.resume();
      await until("up again", seen.up);
      await carrier.publish("k:key-1");
      await until("heard after the restart", () => seen.heard.includes("k:key-1"));
    } finally {
      await carrier.close();
    }
  });

  it("refuses bad options, naming them", () => {
    const field = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        if (error instanceof AuthConfigError) return error.field;
        throw error;
      }
      return null;
    };
    expect(field(() => redisCacheCarrier({ url: "http://x" }))).toBe("redisCacheCarrier.url");
    expect(field(() => redisCacheCarrier({ url: redis.url, channel: "" }))).toBe("redisCacheCarrier.channel");
    expect(field(() => redisCacheCarrier({ url: redis.url, heartbeat: "soon" as never }))).toBe(
      "redisCacheCarrier.heartbeat",
    );
    expect(field(() => redisCacheCarrier({ url: redis.url, chanel: "x" } as never))).toMatch(/chanel/);
  });
});
