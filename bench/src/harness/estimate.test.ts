import { describe, expect, it } from "vitest";
import { CONFIGURATION_S, estimateRun, SETTLE_S } from "./estimate.ts";

describe("duration estimate", () => {
  it("adds up warm-up, window and settling of every window of both servers, and a start-up per configuration", () => {
    // One store, 5 repeats, 2 s + 5 s: a configuration of two plain scenarios and one doubled (sign-in):
    // 2 servers x 5 repeats x ((7 + 1) + (7 + 1) + (14 + 1)) = 310 s, plus one start-up.
    const estimate = estimateRun({
      stores: 1,
      repeat: 5,
      warmupMs: 2_000,
      measureMs: 5_000,
      configurations: [{ part: "standard scenarios", scales: [1, 1, 2] }],
      floor: false,
      hashCap: false,
      workers: false,
    });
    expect(SETTLE_S).toBe(1);
    expect(estimate.totalS).toBe(310 + CONFIGURATION_S);
    expect(estimate.parts).toEqual([{ part: "standard scenarios", seconds: 310 + CONFIGURATION_S, windows: 30 }]);
  });
});
