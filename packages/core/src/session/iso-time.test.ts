import { describe, expect, it } from "vitest";
import { isoTime } from "./iso-time.ts";

const builtIn = (date: Date): string => {
  try {
    return date.toISOString();
  } catch (error) {
    return (error as Error).name;
  }
};
const ours = (date: Date): string => {
  try {
    return isoTime(date);
  } catch (error) {
    return (error as Error).name;
  }
};

describe("isoTime", () => {
  it("is toISOString at the edges: epoch, leap days, century years, the last four-digit year, outside and invalid", () => {
    const edges = [
      0,
      1,
      999,
      86_399_999,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 12),
      Date.UTC(2100, 2, 1),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(2025, 0, 1),
      Date.UTC(2400, 1, 29),
      253_402_300_799_999,
      253_402_300_800_000,
      8.64e15,
      -1,
      -62_198_755_200_000,
      Number.NaN,
    ];
    for (const ms of edges) expect(ours(new Date(ms)), String(ms)).toBe(builtIn(new Date(ms)));
    expect(isoTime(new Date(0))).toBe("1970-01-01T00:00:00.000Z");
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });

  it("is toISOString every 7 days and a bit from 1970 to 9999 (each weekday, month and leap rule) and for 100,000 random instants", () => {
    for (let ms = 0; ms < 253_402_300_800_000; ms += 7 * 86_400_000 + 3_723_001) {
      const date = new Date(ms);
      if (isoTime(date) !== date.toISOString()) expect(isoTime(date)).toBe(date.toISOString());
    }
    let seed = 42;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let i = 0; i < 100_000; i++) {
      const date = new Date(Math.floor(next() * 253_402_300_800_000));
      if (isoTime(date) !== date.toISOString()) expect(isoTime(date)).toBe(date.toISOString());
    }
  });
});
