import { describe, expect, it } from "vitest";
import { STORE_CLOCK_LEAD_MS, type ApiKeyRecord } from "@latchkey/core";
import { applyUse, jsApiKeyUseRule, refusalOf } from "@latchkey/core/internal";
import { fixtures } from "@latchkey/store-conformance";
import {
  apiKeyRerollUpdate,
  apiKeyUseFilter,
  apiKeyUseUpdate,
  counterHitUpdate,
  mongoApiKeyUseRule,
  decodeCursor,
  encodeCursor,
  failedAttemptFilters,
  keysetFilter,
  verificationById,
  verificationIssueUpsert,
} from "./queries.ts";
import { verificationToDoc } from "./documents.ts";

const now = fixtures.at(0);
// The rule's instant: the caller's, bounded by the server's clock ($$NOW plus the lead; see boundByStoreClock).
const bounded = { $min: [now, { $add: ["$$NOW", STORE_CLOCK_LEAD_MS] }] };

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

// Just enough of MongoDB's aggregation semantics to run the generated expressions on a document: field paths
// (missing reads as undefined), $literal, $ifNull, $eq, $lte/$lt (null and missing sort before numbers and dates),
// $and/$or/$not, $add (date + ms is a date; null propagates), $subtract, $cond.
type Doc = Record<string, unknown>;
const rank = (v: unknown) => (v === undefined ? 0 : v === null ? 1 : 2);
const cmp = (x: unknown, y: unknown) => {
  if (rank(x) !== rank(y)) return rank(x) - rank(y);
  if (rank(x) < 2) return 0;
  return Number(x instanceof Date ? x.getTime() : x) - Number(y instanceof Date ? y.getTime() : y);
};
// $$NOW is the server's clock (here this process's); $min of instants is the earlier one.
function run(expr: unknown, doc: Doc): unknown {
  if (expr === "$$NOW") return new Date();
  if (typeof expr === "string") return expr.startsWith("$") ? doc[expr.slice(1)] : expr;
  if (expr === null || typeof expr !== "object" || expr instanceof Date) return expr;
  const [op, raw] = Object.entries(expr as Doc)[0]!;
  if (op === "$literal") return raw;
  const args = raw as unknown[];
  const at = (i: number) => run(args[i], doc);
  switch (op) {
    case "$ifNull":
      return at(0) ?? at(1);
    case "$eq":
      return cmp(at(0), at(1)) === 0;
    case "$lte":
      return cmp(at(0), at(1)) <= 0;
    case "$lt":
      return cmp(at(0), at(1)) < 0;
    case "$and":
      return args.every((_, i) => Boolean(at(i)));
    case "$or":
      return args.some((_, i) => Boolean(at(i)));
    case "$not":
      return !at(0);
    case "$cond":
      return at(0) ? at(1) : at(2);
    case "$min":
      return cmp(at(0), at(1)) <= 0 ? at(0) : at(1);
    case "$add":
    case "$subtract": {
      const [x, y] = [at(0), at(1)];
      if (x == null || y == null) return null;
      const sum = Number(x instanceof Date ? x.getTime() : x) + (op === "$add" ? 1 : -1) * Number(y);
      return x instanceof Date ? new Date(sum) : sum;
    }
    default:
      throw new Error(`operator ${op} not modelled`);
  }
}

describe("apiKeyUseFilter / apiKeyUseUpdate (core's use rule as aggregation expressions)", () => {
  it("filters on the id and the rule's admission in $expr; the update is one $set stage of the rule's columns", () => {
    const filter = apiKeyUseFilter("k_1", now);
    expect(Object.keys(filter)).toEqual(["_id", "$expr"]);
    expect(filter._id).toEqual({ $eq: "k_1" });
    expect(filter.$expr).toEqual(mongoApiKeyUseRule(now).allowed);
    // Admission is "no refusal holds", refusals in core's order.
    expect(filter.$expr).toEqual({ $not: [{ $or: mongoApiKeyUseRule(now).refusals.map(([, test]) => test) }] });
    expect(mongoApiKeyUseRule(now).refusals.map(([reason]) => reason)).toEqual([
      "KEY_DISABLED",
      "KEY_EXPIRED",
      "USAGE_EXCEEDED",
      "RATE_LIMITED",
    ]);
    const [stage, ...rest] = apiKeyUseUpdate(now);
    expect(rest).toEqual([]);
    expect(Object.keys(stage!.$set)).toEqual([
      "remaining",
      "lastRefillAt",
      "requestCount",
      "windowStart",
      "lastUsedAt",
    ]);
    expect(stage!.$set.lastUsedAt).toEqual(bounded);
  });

  it("spells each operator as MongoDB does: nulls through $ifNull, dates plus milliseconds, constants as $literal", () => {
    const rule = mongoApiKeyUseRule(now);
    expect(rule.refusals[0]![1]).toEqual({ $not: [{ $eq: ["$enabled", true] }] });
    expect(rule.refusals[1]![1]).toEqual({
      $and: [{ $not: [{ $eq: [{ $ifNull: ["$expiresAt", null] }, null] }] }, { $lte: ["$expiresAt", bounded] }],
    });
    expect(rule.refillDue).toEqual({
      $and: [
        { $not: [{ $eq: [{ $ifNull: ["$refillAmount", null] }, null] }] },
        { $not: [{ $eq: [{ $ifNull: ["$refillIntervalMs", null] }, null] }] },
        { $lte: [{ $add: [{ $ifNull: ["$lastRefillAt", "$createdAt"] }, "$refillIntervalMs"] }, bounded] },
      ],
    });
    expect(rule.set.remaining).toEqual({
      $cond: [
        rule.refillDue,
        { $subtract: ["$refillAmount", { $literal: 1 }] },
        {
          $cond: [
            { $eq: [{ $ifNull: ["$remaining", null] }, null] },
            "$remaining",
            { $subtract: ["$remaining", { $literal: 1 }] },
          ],
        },
      ],
    });
  });

  it("decides and writes what core's JavaScript rule does, on every edge (boundaries, nulls, missing fields)", () => {
    const base = fixtures.apiKey("u_1");
    const variants: Array<Partial<ApiKeyRecord>> = [];
    for (const enabled of [true, false])
      for (const expiresAt of [null, fixtures.at(-1), now, fixtures.at(1)])
        for (const remaining of [null, 0, 1])
          for (const refill of [
            {},
            { refillAmount: 5, refillIntervalMs: 60_000, lastRefillAt: fixtures.at(-60_000) },
            { refillAmount: 5, refillIntervalMs: 60_000, lastRefillAt: fixtures.at(-59_999) },
            { refillAmount: 5, refillIntervalMs: null },
            { refillAmount: 5, refillIntervalMs: 60_000, createdAt: fixtures.at(-60_000) },
          ])
            for (const window of [
              {},
              { rateLimitMax: 2, rateLimitWindowMs: 1_000, requestCount: 2, windowStart: fixtures.at(-1_000) },
              { rateLimitMax: 2, rateLimitWindowMs: 1_000, requestCount: 2, windowStart: fixtures.at(-999) },
              { rateLimitMax: 2, rateLimitWindowMs: 1_000, requestCount: 1, windowStart: fixtures.at(-999) },
              { rateLimitMax: 0, rateLimitWindowMs: 1_000 },
              { rateLimitMax: 2, rateLimitWindowMs: null, requestCount: 7 },
            ])
              variants.push({ enabled, expiresAt, remaining, ...refill, ...window });
    const js = jsApiKeyUseRule(now);
    const filter = apiKeyUseFilter("k", now);
    const [stage] = apiKeyUseUpdate(now);
    let admitted = 0;
    for (const over of variants) {
      const key = { ...base, ...over };
      // A document written before refills existed has no refill fields at all.
      const doc: Doc = { ...key };
      if (key.refillAmount === null)
        for (const f of ["refillAmount", "refillIntervalMs", "lastRefillAt"]) delete doc[f];
      const allowed = run(filter.$expr, doc) as boolean;
      expect(allowed, JSON.stringify(over)).toBe(refusalOf(js, key) === null);
      if (!allowed) continue;
      admitted++;
      const next = applyUse(js, key);
      for (const [field, expr] of Object.entries(stage!.$set as Doc))
        expect(run(expr, doc) ?? null, `${field} of ${JSON.stringify(over)}`).toEqual(
          next[field as keyof ApiKeyRecord],
        );
    }
    // The grid reaches both outcomes in numbers (so neither branch is vacuous).
    expect(admitted).toBeGreaterThan(50);
    expect(variants.length - admitted).toBeGreaterThan(50);
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
        "$$NOW",
        "$enabled",
        "$expiresAt",
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
      $or: [{ rid: { $eq: "v_1", $type: "string" } }, { _id: { $eq: "v_1" }, rid: { $exists: false } }],
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
