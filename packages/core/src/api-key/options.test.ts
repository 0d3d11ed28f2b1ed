import { describe, expect, it } from "vitest";
import { AuthConfigError } from "../errors/errors.ts";
import { apiKeys } from "./plugin.ts";
import type { ApiKeysOptions } from "./options.ts";
import { isWellFormedApiKey } from "./verify.ts";
import { resolveApiKeysOptions } from "./options.ts";
import { hasPermissions, normalizePermissions } from "./permissions.ts";

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AuthConfigError) return error.field;
    throw error;
  }
  return undefined;
}

describe("apiKeys options", () => {
  it("default to automation-friendly values: lk_ prefix, no quota, no rate limit, no expiry, nothing grantable", () => {
    expect(resolveApiKeysOptions()).toEqual({
      defaultPrefix: "lk_",
      defaultRemaining: null,
      defaultRateLimitMax: null,
      defaultRateLimitWindowMs: null,
      defaultExpiresInMs: null,
      maxExpiresInMs: 365 * 86_400_000,
      grantablePermissions: {},
      header: "x-api-key",
      maxRerollGraceMs: 7 * 86_400_000,
      defaultRefillAmount: null,
      defaultRefillIntervalMs: null,
      lastUsedResolutionMs: 60_000,
      usage: false,
      usageRetentionMs: 90 * 86_400_000,
      maxPerUser: 100,
      httpCreate: true,
    });
    expect(resolveApiKeysOptions({ maxExpiresIn: null, defaultExpiresIn: "2000d" })).toMatchObject({
      maxExpiresInMs: null,
      defaultExpiresInMs: 2000 * 86_400_000,
    });
    expect(
      resolveApiKeysOptions({
        defaultRateLimitMax: 5,
        defaultRateLimitWindow: "1m",
        defaultExpiresIn: "30d",
        header: "X-Service-Key",
      }),
    ).toMatchObject({
      defaultRateLimitMax: 5,
      defaultRateLimitWindowMs: 60_000,
      defaultExpiresInMs: 30 * 86_400_000,
      header: "x-service-key",
    });
  });

  it("are validated when apiKeys() runs, naming apiKeys.<field>", () => {
    const cases: Array<[ApiKeysOptions, string]> = [
      [{ defaultPrefix: "lk-" }, "apiKeys.defaultPrefix"],
      [{ defaultPrefix: "" }, "apiKeys.defaultPrefix"],
      [{ defaultPrefix: "a".repeat(17) }, "apiKeys.defaultPrefix"],
      [{ defaultRemaining: 0 }, "apiKeys.defaultRemaining"],
      [{ defaultRemaining: 1.5 }, "apiKeys.defaultRemaining"],
      [{ defaultRemaining: 2 ** 31 }, "apiKeys.defaultRemaining"],
      [{ defaultRateLimitMax: 5 }, "apiKeys.defaultRateLimitWindow"],
      [{ defaultRateLimitWindow: "1m" }, "apiKeys.defaultRateLimitMax"],
      [{ defaultRateLimitMax: 0, defaultRateLimitWindow: "1m" }, "apiKeys.defaultRateLimitMax"],
      [{ defaultRateLimitMax: 5, defaultRateLimitWindow: "soon" as never }, "apiKeys.defaultRateLimitWindow"],
      [{ defaultRateLimitMax: 5, defaultRateLimitWindow: "400d" }, "apiKeys.defaultRateLimitWindow"],
      [{ defaultExpiresIn: -1 }, "apiKeys.defaultExpiresIn"],
      [{ defaultExpiresIn: "4000d" }, "apiKeys.defaultExpiresIn"],
      [{ defaultExpiresIn: "400d" }, "apiKeys.defaultExpiresIn"],
      [{ maxExpiresIn: "4000d" }, "apiKeys.maxExpiresIn"],
      [{ maxExpiresIn: 0 }, "apiKeys.maxExpiresIn"],
      [{ grantablePermissions: { files: "read" } as never }, "apiKeys.grantablePermissions"],
      [{ grantablePermissions: { "*": ["read"] } }, "apiKeys.grantablePermissions"],
      [{ header: "x api key" }, "apiKeys.header"],
      [{ header: "Authorization" }, "apiKeys.header"],
      [{ header: "cookie" }, "apiKeys.header"],
    ];
    for (const [options, field] of cases)
      expect(
        fieldOf(() => apiKeys(options)),
        JSON.stringify(options),
      ).toBe(field);
  });
});

describe("permissions", () => {
  it("pass only when every requested action of every requested resource is granted (all-of)", () => {
    const granted = { files: ["read", "write"], users: ["read"] };
    expect(hasPermissions(granted, {})).toBe(true);
    expect(hasPermissions(granted, { files: ["read", "write"], users: ["read"] })).toBe(true);
    expect(hasPermissions(granted, { files: ["read", "delete"] })).toBe(false);
    expect(hasPermissions(granted, { billing: [] })).toBe(false);
    expect(hasPermissions({}, { files: ["read"] })).toBe(false);
  });

  it("prototype keys are never granted: constructor, toString and __proto__ are not resources", () => {
    expect(hasPermissions({}, { constructor: [] })).toBe(false);
    expect(hasPermissions({}, { toString: [] })).toBe(false);
    expect(normalizePermissions(JSON.parse('{"__proto__": ["read"]}'))).toMatchObject({ ok: false });
  });

  it("are normalized: duplicates dropped, bad shapes refused", () => {
    expect(normalizePermissions({ files: ["read", "read", "write"] })).toEqual({
      ok: true,
      value: { files: ["read", "write"] },
    });
    for (const bad of [
      null,
      [],
      "files",
      { files: [1] },
      { files: ["a b"] },
      { "": ["read"] },
      { files: Array.from({ length: 65 }, (_, i) => `a${i}`) },
    ]) {
      expect(normalizePermissions(bad).ok, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("key shape", () => {
  it("accepts any 1..16-char prefix plus 40 base62 characters, nothing else", () => {
    const body = "A1b2C3d4E5".repeat(4);
    expect(isWellFormedApiKey(`lk_${body}`)).toBe(true);
    expect(isWellFormedApiKey(`acme_prod_${body}`)).toBe(true);
    for (const bad of [
      "",
      body,
      `lk-${body}`,
      `lk_${body}x`.slice(0, 40),
      `lk_${body.slice(1)}é`,
      `${"p".repeat(17)}${body}`,
      `lk_${body}`.repeat(100),
      42,
      null,
    ]) {
      expect(isWellFormedApiKey(bad), String(bad).slice(0, 30)).toBe(false);
    }
  });
});

describe("reroll, refill, lastUsed, usage and per-user cap options", () => {
  it("resolve to milliseconds and refuse what cannot work, naming the option", () => {
    expect(
      resolveApiKeysOptions({
        maxRerollGrace: "1h",
        defaultRefillAmount: 10,
        defaultRefillInterval: "1d",
        lastUsedResolution: "10s",
        usage: true,
        usageRetention: "30d",
        maxPerUser: null,
      }),
    ).toMatchObject({
      maxRerollGraceMs: 3_600_000,
      defaultRefillAmount: 10,
      defaultRefillIntervalMs: 86_400_000,
      lastUsedResolutionMs: 10_000,
      usage: true,
      usageRetentionMs: 30 * 86_400_000,
      maxPerUser: null,
    });
    const bad: Array<[Parameters<typeof resolveApiKeysOptions>[0], string]> = [
      [{ defaultRefillAmount: 10 }, "apiKeys.defaultRefillInterval"],
      [{ defaultRefillInterval: "1d" }, "apiKeys.defaultRefillAmount"],
      [{ defaultRefillAmount: 10, defaultRefillInterval: 0.5 }, "apiKeys.defaultRefillInterval"],
      [{ maxRerollGrace: "91d" }, "apiKeys.maxRerollGrace"],
      [{ lastUsedResolution: "2d" }, "apiKeys.lastUsedResolution"],
      [{ usageRetention: "12h" }, "apiKeys.usageRetention"],
      [{ usage: "yes" as unknown as boolean }, "apiKeys.usage"],
      [{ maxPerUser: 0 }, "apiKeys.maxPerUser"],
    ];
    for (const [options, field] of bad) {
      expect(() => resolveApiKeysOptions(options), field).toThrow(AuthConfigError);
      expect(() => resolveApiKeysOptions(options), field).toThrow(field);
    }
  });
});
