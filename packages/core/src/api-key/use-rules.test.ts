import { describe, expect, it } from "vitest";
import type { ApiKeyRecord } from "../ports/records.ts";
import { apiKeyUseRefusal, isRefillDue } from "./use-rules.ts";

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
  createdAt: at(-120_000),
  updatedAt: T0,
  ...over,
});

describe("apiKeyUseRefusal (explains a refused use, in every store's order)", () => {
  it.each([
    ["unknown key", null, "NOT_FOUND"],
    ["disabled", key({ enabled: false, remaining: 0 }), "KEY_DISABLED"],
    ["expired exactly now", key({ expiresAt: T0, remaining: 0 }), "KEY_EXPIRED"],
    ["no uses left", key({ remaining: 0 }), "USAGE_EXCEEDED"],
    [
      "no uses left, refill not yet due",
      key({ remaining: 0, refillAmount: 5, refillIntervalMs: 60_000, lastRefillAt: at(-59_999) }),
      "USAGE_EXCEEDED",
    ],
    [
      "refill due but the window is full",
      key({
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
      key({ rateLimitMax: 2, rateLimitWindowMs: 60_000, requestCount: 2, windowStart: at(-59_999) }),
      "RATE_LIMITED",
    ],
  ] as const)("%s -> %s", (_, k, reason) => {
    expect(apiKeyUseRefusal(k, T0)).toBe(reason);
  });

  it.each([
    ["unlimited", key()],
    ["one use left, expires later", key({ remaining: 1, expiresAt: at(1) })],
    [
      "used up, refill due now",
      key({ remaining: 0, refillAmount: 5, refillIntervalMs: 60_000, lastRefillAt: at(-60_000) }),
    ],
    [
      "used up, never refilled, interval since creation passed",
      key({ remaining: 0, refillAmount: 5, refillIntervalMs: 120_000 }),
    ],
    [
      "window ended exactly now",
      key({ rateLimitMax: 2, rateLimitWindowMs: 60_000, requestCount: 2, windowStart: at(-60_000) }),
    ],
  ] as const)("%s -> usable", (_, k) => {
    expect(apiKeyUseRefusal(k, T0)).toBeNull();
  });

  it("isRefillDue needs both refill fields and counts from lastRefillAt, else from creation", () => {
    expect(isRefillDue(key({ refillAmount: 5 }), T0)).toBe(false);
    expect(isRefillDue(key({ refillAmount: 5, refillIntervalMs: 120_000 }), T0)).toBe(true);
    expect(isRefillDue(key({ refillAmount: 5, refillIntervalMs: 120_000, lastRefillAt: at(-1) }), T0)).toBe(false);
  });
});
