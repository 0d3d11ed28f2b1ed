import { describe, expect, it } from "vitest";
import type { ApiKeyRecord } from "../ports/records.ts";
import { apiKeyUseRule, type UseRuleBuilder } from "./use-rule.ts";
import { apiKeyUseRefusal, isRefillDue } from "./use-rules.ts";
import { applyUse, jsApiKeyUseRule, jsUseRuleBuilder, refusalOf } from "./use-rule-js.ts";

const T0 = new Date(Date.UTC(2026, 0, 1));
const at = (ms: number) => new Date(T0.getTime() + ms);
const key = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: "k_1",
  userId: "u_1",
  name: null,
  prefix: "lk_",
  start: "lk_abcde",
  keyHash: "h",
  enabled: true,
  locked: false,
  metadata: {},
  serverMetadata: {},
  permissions: {},
  remaining: null,
  refillAmount: null,
  refillIntervalMs: null,
  lastRefillAt: null,
  previousKeyHash: null,
  previousKeyExpiresAt: null,
  rerolledAt: null,
  rateLimitMax: null,
  rateLimitWindowMs: null,
  requestCount: 0,
  windowStart: null,
  lastUsedAt: null,
  expiresAt: null,
  createdAt: at(-86_400_000),
  updatedAt: at(-86_400_000),
  organizationId: null,
  ...over,
});

// A builder that prints each expression, to read the rule as a store's translation sees it.
const printer: UseRuleBuilder<{ bool: string; num: string; time: string }> = {
  num: (name) => name,
  time: (name) => name,
  enabled: () => "enabled",
  now: () => "now",
  int: (value) => String(value),
  isNull: (value) => `${value} is null`,
  and: (...terms) => `(${terms.join(" and ")})`,
  or: (...terms) => `(${terms.join(" or ")})`,
  not: (term) => `not ${term}`,
  lte: (left, right) => `${left} <= ${right}`,
  lt: (left, right) => `${left} < ${right}`,
  add: (left, right) => `(${left} + ${right})`,
  sub: (left, right) => `(${left} - ${right})`,
  addMs: (instant, ms) => `(${instant} + ${ms}ms)`,
  coalesce: <T extends string>(value: T, fallback: T) => `coalesce(${value}, ${fallback})` as T,
  when: <T extends string>(test: string, then: T, otherwise: T) => `(${test} ? ${then} : ${otherwise})` as T,
};

describe("apiKeyUseRule (written once, run by every store)", () => {
  it("reads as the documented rule: refusals in order, admission is none of them", () => {
    const rule = apiKeyUseRule(printer);
    expect(rule.refusals.map(([reason]) => reason)).toEqual([
      "KEY_DISABLED",
      "KEY_EXPIRED",
      "USAGE_EXCEEDED",
      "RATE_LIMITED",
    ]);
    expect(rule.refusals[1]![1]).toBe("(not expiresAt is null and expiresAt <= now)");
    expect(rule.allowed).toBe(`not (${rule.refusals.map(([, t]) => t).join(" or ")})`);
    expect(rule.set.lastUsedAt).toBe("now");
  });

  it("never compares a null: every nullable column is guarded (the JavaScript evaluator would throw)", () => {
    const nulls = key({ remaining: null, rateLimitMax: 3, rateLimitWindowMs: null, refillAmount: 1 });
    const rule = jsApiKeyUseRule(T0);
    expect(refusalOf(rule, nulls)).toBeNull();
    expect(applyUse(rule, nulls)).toMatchObject({ remaining: null, requestCount: 0, windowStart: null });
    // An unguarded comparison is caught rather than decided differently per store.
    const b = jsUseRuleBuilder(T0);
    expect(() => b.lte(b.time("expiresAt"), b.now())(key())).toThrow(/null/);
  });

  it("writes a use: refill first when due, window restart exactly at its end", () => {
    const rule = jsApiKeyUseRule(T0);
    const due = key({ remaining: 0, refillAmount: 4, refillIntervalMs: 60_000, lastRefillAt: at(-60_000) });
    expect(applyUse(rule, due)).toMatchObject({ remaining: 3, lastRefillAt: T0, lastUsedAt: T0 });
    const running = key({ rateLimitMax: 3, rateLimitWindowMs: 60_000, requestCount: 2, windowStart: at(-59_999) });
    expect(applyUse(rule, running)).toMatchObject({ requestCount: 3, windowStart: at(-59_999) });
    const ended = { ...running, windowStart: at(-60_000) };
    expect(applyUse(rule, ended)).toMatchObject({ requestCount: 1, windowStart: T0 });
  });
});

// The JavaScript entry points stores use to explain a refusal, over a key created two minutes before T0.
const recentKey = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord =>
  key({ createdAt: at(-120_000), updatedAt: T0, ...over });

describe("apiKeyUseRefusal (explains a refused use, in every store's order)", () => {
  it.each([
    ["unknown key", null, "NOT_FOUND"],
    ["disabled", recentKey({ enabled: false, remaining: 0 }), "KEY_DISABLED"],
    ["expired exactly now", recentKey({ expiresAt: T0, remaining: 0 }), "KEY_EXPIRED"],
    ["no uses left", recentKey({ remaining: 0 }), "USAGE_EXCEEDED"],
    [
      "no uses left, refill not yet due",
      recentKey({ remaining: 0, refillAmount: 5, refillIntervalMs: 60_000, lastRefillAt: at(-59_999) }),
      "USAGE_EXCEEDED",
    ],
    [
      "refill due but the window is full",
      recentKey({
        remaining: 0,
        refillAmount: 5,
        refillIntervalMs: 60_000,
        lastRefillAt: at(-60_000),
        rateLimitMax: 1,
        rateLimitWindowMs: 60_000,
        requestCount: 1,
        windowStart: at(-1),
      }),
      "RATE_LIMITED",
    ],
    [
      "window full",
      recentKey({ rateLimitMax: 2, rateLimitWindowMs: 60_000, requestCount: 2, windowStart: at(-59_999) }),
      "RATE_LIMITED",
    ],
  ] as const)("%s -> %s", (_, k, reason) => {
    expect(apiKeyUseRefusal(k, T0)).toBe(reason);
  });

  it.each([
    ["unlimited", recentKey()],
    ["one use left, expires later", recentKey({ remaining: 1, expiresAt: at(1) })],
    [
      "used up, refill due now",
      recentKey({ remaining: 0, refillAmount: 5, refillIntervalMs: 60_000, lastRefillAt: at(-60_000) }),
    ],
    [
      "used up, never refilled, interval since creation passed",
      recentKey({ remaining: 0, refillAmount: 5, refillIntervalMs: 120_000 }),
    ],
    [
      "window ended exactly now",
      recentKey({ rateLimitMax: 2, rateLimitWindowMs: 60_000, requestCount: 2, windowStart: at(-60_000) }),
    ],
  ] as const)("%s -> usable", (_, k) => {
    expect(apiKeyUseRefusal(k, T0)).toBeNull();
  });

  it("isRefillDue needs both refill fields and counts from lastRefillAt, else from creation", () => {
    expect(isRefillDue(recentKey({ refillAmount: 5 }), T0)).toBe(false);
    expect(isRefillDue(recentKey({ refillAmount: 5, refillIntervalMs: 120_000 }), T0)).toBe(true);
    expect(isRefillDue(recentKey({ refillAmount: 5, refillIntervalMs: 120_000, lastRefillAt: at(-1) }), T0)).toBe(
      false,
    );
  });
});
