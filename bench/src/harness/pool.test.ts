import { describe, expect, it } from "vitest";
import { base32ToHex, exhausted, newPool, nextPoolSize, poolNeed, take, totpCode } from "./pool.ts";

describe("the bench's authenticator app", () => {
  // RFC 6238, appendix B: the SHA-1 key "12345678901234567890"; its 8-digit codes cut to the last 6 digits.
  const key = Buffer.from("12345678901234567890", "ascii").toString("hex");
  it.each([
    [59, "287082"],
    [1111111109, "081804"],
    [1111111111, "050471"],
    [1234567890, "005924"],
    [2000000000, "279037"],
    [20000000000, "353130"],
  ])("gives RFC 6238's code at T=%i", (seconds, code) => {
    expect(totpCode(key, seconds * 1000)).toBe(code);
  });

  it("reads the base32 secret an authenticator app is given", () => {
    expect(base32ToHex("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")).toBe(key);
    expect(base32ToHex("gezdgnbvgy3tqojqgezdgnbvgy3tqojq")).toBe(key);
    expect(() => base32ToHex("GEZ1")).toThrow("not base32");
  });
});

describe("credential pools", () => {
  it("hands out each credential once, and says when a window asked for more than it holds", () => {
    const pool = newPool([{ credential: "a" }, { credential: "b" }]);
    expect([take(pool).credential, take(pool).credential]).toEqual(["a", "b"]);
    expect(exhausted(pool)).toBe(false);
    expect(take(pool).credential).toBe("b");
    expect(exhausted(pool)).toBe(true);
  });

  it("sizes a pool for the most a pinned core can do at the CPU per request seen, or what was taken with half more", () => {
    // 4 s of load at 2 ms of CPU a request: at most 2,000 requests on one core, a fifth more, plus 32 in flight.
    expect(poolNeed(300, 2, 4000, 32)).toBe(2432);
    // A window that took more than its CPU suggests (the first requests of a window): half as much again.
    expect(poolNeed(3000, 2, 4000, 32)).toBe(4532);
    expect(poolNeed(100, Number.NaN, 4000, 32)).toBe(182);
    expect(nextPoolSize(null, 3000)).toBe(3000);
    expect(nextPoolSize(2432, 3000)).toBe(2432);
    expect(nextPoolSize(10, 3000)).toBe(500);
  });
});
