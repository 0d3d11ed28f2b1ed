import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration } from "../config/duration.ts";
import { resolveConfig, type AuthOptions } from "./options.ts";

const base = (): AuthOptions => ({ secret: "s".repeat(32), database: memoryStore(), baseUrl: "https://app.example" });

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AuthConfigError) return error.field;
    throw error;
  }
  return undefined;
}

describe("durations", () => {
  it("accept seconds, compact strings and objects", () => {
    expect(parseDuration(90, "f")).toBe(90_000);
    expect(parseDuration("30s", "f")).toBe(30_000);
    expect(parseDuration("15m", "f")).toBe(900_000);
    expect(parseDuration("7d", "f")).toBe(604_800_000);
    expect(parseDuration({ days: 1, hours: 2, minutes: 3, seconds: 4 }, "f")).toBe(93_784_000);
  });

  it("reject malformed values naming the field", () => {
    expect(fieldOf(() => parseDuration("15 minutes" as never, "lockout.window"))).toBe("lockout.window");
    expect(fieldOf(() => parseDuration(-1, "x"))).toBe("x");
    expect(fieldOf(() => parseDuration({ fortnights: 1 } as never, "y"))).toBe("y");
  });
});

describe("options", () => {
  it("fill defaults", () => {
    const c = resolveConfig(base());
    expect(c.environment).toBe("production");
    expect(c.cookies).toMatchObject({ secure: true, name: "__Host-latchkey.session" });
    expect(c.session).toEqual({
      expiresInMs: 7 * 86_400_000,
      updateAgeMs: 86_400_000,
      shortExpiresInMs: 86_400_000,
      freshAgeMs: 86_400_000,
    });
    expect(c.lockout).toMatchObject({ maxFailures: 5, windowMs: 900_000, durationMs: 900_000 });
    expect(c.trustedOrigins).toEqual(["https://app.example"]);
  });

  it("name the bad field", () => {
    expect(fieldOf(() => resolveConfig({ ...base(), secret: "short" }))).toBe("secret");
    expect(fieldOf(() => resolveConfig({ ...base(), database: {} as never }))).toBe("database");
    expect(fieldOf(() => resolveConfig({ ...base(), cookies: { secure: false } }))).toBe("cookies.secure");
    expect(
      fieldOf(() =>
        resolveConfig({ ...base(), environment: "development", cookies: { secure: false, sameSite: "None" } }),
      ),
    ).toBe("cookies.sameSite");
    expect(resolveConfig({ ...base(), cookies: { sameSite: "None" } }).cookies.sameSite).toBe("None");
    expect(fieldOf(() => resolveConfig({ ...base(), baseUrl: undefined }))).toBe("baseUrl");
    expect(fieldOf(() => resolveConfig({ ...base(), session: { expiresIn: "1h", updateAge: "1d" } }))).toBe(
      "session.updateAge",
    );
    expect(fieldOf(() => resolveConfig({ ...base(), trustedOrigins: ["not a url"] }))).toBe("trustedOrigins[0]");
    expect(fieldOf(() => resolveConfig({ ...base(), emailVerification: { callbackPath: "//evil" } }))).toBe(
      "emailVerification.callbackPath",
    );
    expect(
      fieldOf(() => resolveConfig({ ...base(), deleteAccount: { callbackUrlOverride: "https://app.example/x" } })),
    ).toBe("deleteAccount.callbackUrlOverride");
    expect(fieldOf(() => resolveConfig({ ...base(), rateLimit: { rules: { "/x": { window: "1m", max: 0 } } } }))).toBe(
      'rateLimit.rules["/x"].max',
    );
  });

  it("allow insecure cookies only in development", () => {
    const c = resolveConfig({ ...base(), environment: "development", cookies: { secure: false } });
    expect(c.cookies.name).toBe("latchkey.session");
  });
});
