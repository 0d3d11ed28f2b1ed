import { describe, expect, it } from "vitest";
import { fixtures } from "@latchkey/store-conformance";
import {
  apiKeyRefusal,
  apiKeyUseFilter,
  apiKeyUseUpdate,
  counterHitUpdate,
  decodeCursor,
  encodeCursor,
  failedAttemptFilters,
  keysetFilter,
} from "./queries.ts";

const now = fixtures.at(0);
const key = (over: Parameters<typeof fixtures.apiKey>[1] = {}) => fixtures.apiKey("u_1", over);

describe("counterHitUpdate", () => {
  it("is one $set stage, so count and resetAt both read the document from before the update", () => {
    const t = now.getTime();
    const running = { $gt: ["$resetAt", new Date(t)] };
    expect(counterHitUpdate(60_000, t)).toEqual([
      {
        $set: {
          count: { $cond: [running, { $add: ["$count", 1] }, 1] },
          resetAt: { $cond: [running, "$resetAt", new Date(t + 60_000)] },
        },
      },
    ]);
  });
});

describe("apiKeyUseFilter / apiKeyUseUpdate", () => {
  it("filters on id, enabled, expiry, quota and window with the caller's time as a Date", () => {
    const filter = apiKeyUseFilter("k_1", now);
    expect(filter).toMatchObject({
      _id: "k_1",
      enabled: true,
      $and: [
        { $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] },
        { $or: [{ remaining: null }, { remaining: { $gt: 0 } }] },
        { $or: [{ rateLimitMax: null }, { rateLimitWindowMs: null }, expect.anything(), expect.anything()] },
      ],
    });
  });

  it("admits an ended window only when the limit allows one use (a limit of 0 never admits)", () => {
    const windowBranches = (apiKeyUseFilter("k_1", now).$and as Array<{ $or: unknown[] }>)[2]!.$or;
    expect(JSON.stringify(windowBranches[2])).toContain('{"$gt":["$rateLimitMax",0]}');
    expect(JSON.stringify(windowBranches[3])).toContain('{"$lt":["$requestCount","$rateLimitMax"]}');
  });

  it("updates remaining, the window and lastUsedAt in one stage", () => {
    const [stage, ...rest] = apiKeyUseUpdate(now);
    expect(rest).toEqual([]);
    expect(Object.keys(stage!.$set)).toEqual(["remaining", "requestCount", "windowStart", "lastUsedAt"]);
    expect(stage!.$set.lastUsedAt).toBe(now);
    expect(stage!.$set.remaining).toEqual({
      $cond: [{ $isNumber: "$remaining" }, { $subtract: ["$remaining", 1] }, null],
    });
  });

  it("carries no string that the pipeline could read as a field path other than the key's own fields", () => {
    const strings: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === "string") strings.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === "object" && !(value instanceof Date)) Object.values(value).forEach(walk);
    };
    walk([apiKeyUseFilter("k_1", now), apiKeyUseUpdate(now), counterHitUpdate(1000, now.getTime())]);
    const paths = strings.filter((s) => s.startsWith("$"));
    expect(new Set(paths)).toEqual(
      new Set([
        "$windowStart",
        "$rateLimitWindowMs",
        "$rateLimitMax",
        "$requestCount",
        "$remaining",
        "$resetAt",
        "$count",
      ]),
    );
  });
});

describe("apiKeyRefusal (explains a refused use, in the port's order)", () => {
  it.each([
    ["unknown key", null, "NOT_FOUND"],
    ["disabled", key({ enabled: false, remaining: 0 }), "KEY_DISABLED"],
    ["expired exactly now", key({ expiresAt: now, remaining: 0 }), "KEY_EXPIRED"],
    ["no uses left", key({ remaining: 0 }), "USAGE_EXCEEDED"],
    [
      "window full",
      key({ rateLimitMax: 2, rateLimitWindowMs: 60_000, requestCount: 2, windowStart: fixtures.at(-59_999) }),
      "RATE_LIMITED",
    ],
    [
      "limit of zero, window ended",
      key({ rateLimitMax: 0, rateLimitWindowMs: 60_000, requestCount: 0, windowStart: null }),
      "RATE_LIMITED",
    ],
  ] as const)("%s -> %s", (_, k, reason) => {
    expect(apiKeyRefusal(k, now)).toBe(reason);
  });

  it.each([
    ["unlimited", key()],
    ["one use left, expires later", key({ remaining: 1, expiresAt: fixtures.at(1) })],
    [
      "window ended exactly now",
      key({ rateLimitMax: 2, rateLimitWindowMs: 60_000, requestCount: 2, windowStart: fixtures.at(-60_000) }),
    ],
    [
      "window with room",
      key({ rateLimitMax: 2, rateLimitWindowMs: 60_000, requestCount: 1, windowStart: fixtures.at(-1) }),
    ],
  ] as const)("%s -> usable", (_, k) => {
    expect(apiKeyRefusal(k, now)).toBeNull();
  });
});

describe("failedAttemptFilters", () => {
  it("splits on the last allowed attempt so each failure matches exactly one write", () => {
    expect(failedAttemptFilters("v_1", 3)).toEqual({
      destroy: { _id: { $eq: "v_1" }, attemptCount: { $gte: 2 } },
      increment: { _id: { $eq: "v_1" }, attemptCount: { $lt: 2 } },
    });
  });

  it("with a maximum of 1 the first failure destroys the row", () => {
    expect(failedAttemptFilters("v_1", 1).destroy).toEqual({ _id: { $eq: "v_1" }, attemptCount: { $gte: 0 } });
  });
});

describe("keyset cursors", () => {
  it("round-trips time and id, ids with colons included", () => {
    const cursor = encodeCursor(fixtures.at(5), "k:with:colons");
    expect(decodeCursor(cursor)).toEqual({ at: fixtures.at(5), id: "k:with:colons" });
  });

  it("rejects malformed cursors", () => {
    for (const bad of ["", "abc", "12", ":id", "-5:id", "1234567890123456:id"]) expect(decodeCursor(bad)).toBeNull();
  });

  it("pages strictly after the cursor: older, or same time with a smaller id", () => {
    expect(keysetFilter("createdAt", null)).toEqual({});
    expect(keysetFilter("createdAt", "nonsense")).toBeNull();
    expect(keysetFilter("at", encodeCursor(fixtures.at(5), "a_9"))).toEqual({
      $or: [{ at: { $lt: fixtures.at(5) } }, { at: fixtures.at(5), _id: { $lt: "a_9" } }],
    });
  });
});
