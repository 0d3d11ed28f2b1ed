import { describe, expect, it } from "vitest";
import { fixtures } from "@latchkey/store-conformance";
import {
  apiKeyRerollUpdate,
  apiKeyUseFilter,
  apiKeyUseUpdate,
  counterHitUpdate,
  decodeCursor,
  encodeCursor,
  failedAttemptFilters,
  keysetFilter,
  verificationById,
  verificationIssueUpsert,
} from "./queries.ts";
import { verificationToDoc } from "./documents.ts";

const now = fixtures.at(0);

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
      _id: { $eq: "k_1" },
      enabled: true,
      $and: [
        { $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] },
        { $or: [{ remaining: null }, { remaining: { $gt: 0 } }, { $expr: expect.anything() }] },
        { $or: [{ rateLimitMax: null }, { rateLimitWindowMs: null }, expect.anything(), expect.anything()] },
      ],
    });
  });

  it("admits an ended window only when the limit allows one use (a limit of 0 never admits)", () => {
    const windowBranches = (apiKeyUseFilter("k_1", now).$and as Array<{ $or: unknown[] }>)[2]!.$or;
    expect(JSON.stringify(windowBranches[2])).toContain('{"$gt":["$rateLimitMax",0]}');
    expect(JSON.stringify(windowBranches[3])).toContain('{"$lt":["$requestCount","$rateLimitMax"]}');
  });

  it("updates remaining (refilling when due), lastRefillAt, the window and lastUsedAt in one stage", () => {
    const [stage, ...rest] = apiKeyUseUpdate(now);
    expect(rest).toEqual([]);
    expect(Object.keys(stage!.$set)).toEqual([
      "remaining",
      "lastRefillAt",
      "requestCount",
      "windowStart",
      "lastUsedAt",
    ]);
    expect(stage!.$set.lastUsedAt).toBe(now);
    const due = {
      $and: [
        { $isNumber: "$refillAmount" },
        { $isNumber: "$refillIntervalMs" },
        { $lte: [{ $add: [{ $ifNull: ["$lastRefillAt", "$createdAt"] }, "$refillIntervalMs"] }, now] },
      ],
    };
    expect(stage!.$set.remaining).toEqual({
      $cond: [
        due,
        { $subtract: ["$refillAmount", 1] },
        { $cond: [{ $isNumber: "$remaining" }, { $subtract: ["$remaining", 1] }, null] },
      ],
    });
    expect(stage!.$set.lastRefillAt).toEqual({ $cond: [due, now, { $ifNull: ["$lastRefillAt", null] }] });
    // The filter admits a used-up key only through the same refill condition.
    const quota = (apiKeyUseFilter("k_1", now).$and as Array<{ $or: unknown[] }>)[1]!.$or;
    expect(quota[2]).toEqual({ $expr: due });
  });

  it("a reroll moves the current hash to previousKeyHash only with a grace, and wraps caller values in $literal", () => {
    const graceUntil = fixtures.at(60_000);
    const [stage] = apiKeyRerollUpdate({ keyHash: "$new", start: "$start", graceUntil, at: now });
    expect(stage!.$set).toEqual({
      previousKeyHash: "$keyHash",
      previousKeyExpiresAt: graceUntil,
      keyHash: { $literal: "$new" },
      start: { $literal: "$start" },
      rerolledAt: now,
      updatedAt: now,
    });
    const [none] = apiKeyRerollUpdate({ keyHash: "h", start: "s", graceUntil: null, at: now });
    expect(none!.$set).toMatchObject({ previousKeyHash: null, previousKeyExpiresAt: null });
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
        "$refillAmount",
        "$refillIntervalMs",
        "$lastRefillAt",
        "$createdAt",
        "$resetAt",
        "$count",
      ]),
    );
  });
});

describe("failedAttemptFilters", () => {
  it("splits on the last allowed attempt so each failure matches exactly one write", () => {
    expect(failedAttemptFilters("v_1", 3)).toEqual({
      destroy: { ...verificationById("v_1"), attemptCount: { $gte: 2 } },
      increment: { ...verificationById("v_1"), attemptCount: { $lt: 2 } },
    });
  });

  it("with a maximum of 1 the first failure destroys the row", () => {
    expect(failedAttemptFilters("v_1", 1).destroy).toEqual({ ...verificationById("v_1"), attemptCount: { $gte: 0 } });
  });
});

describe("verifications.issue as one upsert", () => {
  it("matches the identifier with $eq, sets the new code and record id in place, and sets _id only on insert", () => {
    const v = fixtures.verification({ identifier: "otp:sign-in:ada@example.com", attemptCount: 0 });
    const { filter, update } = verificationIssueUpsert(verificationToDoc(v));
    expect(filter).toEqual({ identifier: { $eq: v.identifier } });
    expect(update).toEqual({
      $set: {
        rid: v.id,
        valueHash: v.valueHash,
        attemptCount: 0,
        expiresAt: v.expiresAt,
        createdAt: v.createdAt,
        userId: v.userId,
        payload: v.payload,
      },
      $setOnInsert: { _id: v.id },
    });
  });

  it("a record id matches the row's rid, or the _id of a row written before rid existed, never a rotated row", () => {
    expect(verificationById("v_1")).toEqual({
      $or: [{ rid: { $eq: "v_1" } }, { _id: { $eq: "v_1" }, rid: { $exists: false } }],
    });
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
