import type { Measurement } from "./load.ts";
import type { ScenarioResult } from "./report.ts";

// The report tests' windows and results; no timing is asserted anywhere (numbers come only from `pnpm bench`).

export const measurement = (
  opsPerSec: number,
  cpuMsPerOp: number,
  dbCpuMsPerOp: number | null = null,
): Measurement => ({
  opsPerSec,
  cpuMsPerOp,
  dbCpuMsPerOp,
  p50Ms: 1,
  p99Ms: 2,
  errors: 0,
  ops: opsPerSec * 5,
  windowMs: 5000,
  rssPeakMb: 100,
  windowMonotonicUs: [0, 5_000_000],
});

export const result = (
  latchkey: Measurement | null,
  betterAuth: Measurement | null,
  target: number | null,
): ScenarioResult => ({
  id: "token",
  title: "/token",
  store: "memory",
  unit: "req",
  latchkey,
  betterAuth,
  target,
  floorTarget: null,
  skipped: null,
});
