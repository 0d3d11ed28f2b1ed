import type { Measurement } from "./load.ts";

// The figures of a scenario computed from its recorded windows: each side's medians, the ratios per pair of windows.

/** One scenario on one store: both servers' measurements (or why it was skipped). */
export interface ScenarioResult {
  id: string;
  title: string;
  store: "memory" | "libsql" | "postgres";
  unit: string;
  /** The median of the recorded windows (each field its own median), or the single window of a run without repeats. */
  latchkey: Measurement | null;
  betterAuth: Measurement | null;
  /**
   * Every recorded window, one pair per repeat (the two libraries measured back to back, the order alternating):
   * the ratios are computed per pair, then their median and range reported.
   */
  windows?: { latchkey: Measurement | null; betterAuth: Measurement | null }[];
  /** What one request costs each side in store work, e.g. "1 read vs 1 read + 2 writes". */
  work?: string;
  /** The ratio Latchkey/Better Auth we aim for, if there is one. */
  target: number | null;
  /** Target as a fraction of the Hono floor (get-session on memory). */
  floorTarget: number | null;
  /** Why the scenario (or the Latchkey half of it) did not run. */
  skipped: string | null;
}

/** Median, lowest and highest of a set of figures. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  /** How many figures (windows) it was computed from. */
  n: number;
}

/** Median (mean of the middle two for an even count) and range of the finite values; null when there are none. */
export function spread(values: readonly number[]): Spread | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number, n: sorted.length };
}

/**
 * The fewest operations a window must complete for any figure to be computed from it. A window's count is off by the
 * operations that straddle its edges, and its CPU holds the work of operations still in flight when it closes: with
 * 20 or more, one operation either way moves the throughput by at most 5%. Below that, a window of slow operations
 * (password hashing, 32 connections queued on one core) can hold one completion and the CPU of the whole window,
 * which made a 55.7x "ratio" out of a single sign-in. bench/README.md gives the reasoning.
 */
export const MIN_OPS = 20;

/**
 * Whether figures may be computed from a measurement: a single window completed at least MIN_OPS operations; a
 * median of windows (`medianMeasurement`) was computed from at least one such window.
 */
export function qualifies(m: Measurement | null): m is Measurement {
  if (m === null) return false;
  return m.qualifiedWindows === undefined ? m.ops >= MIN_OPS : m.qualifiedWindows > 0;
}

/**
 * The windows of one side as one Measurement: every field the median of that field over the windows that completed
 * at least MIN_OPS operations (`qualifiedWindows` says how many). Where none did, the figures are NaN, so no ratio is
 * computed from them; `ops` is still the count over every window.
 */
export function medianMeasurement(all: readonly Measurement[]): Measurement | null {
  if (all.length === 0) return null;
  const counted = all.filter(qualifies);
  const nan = counted.length === 0;
  const windows = nan ? all : counted;
  const med = (pick: (m: Measurement) => number) => spread(windows.map(pick))?.median ?? Number.NaN;
  const db = windows.map((m) => m.dbCpuMsPerOp).filter((v): v is number => typeof v === "number");
  const figure = (n: number) => (nan ? Number.NaN : n);
  return {
    opsPerSec: figure(med((m) => m.opsPerSec)),
    p50Ms: figure(med((m) => m.p50Ms)),
    p99Ms: figure(med((m) => m.p99Ms)),
    errors: all.reduce((sum, m) => sum + m.errors, 0),
    ops: all.reduce((sum, m) => sum + m.ops, 0),
    cpuMsPerOp: figure(med((m) => m.cpuMsPerOp)),
    dbCpuMsPerOp: db.length ? figure(spread(db)?.median ?? Number.NaN) : null,
    windowMs: all.reduce((sum, m) => sum + m.windowMs, 0),
    rssPeakMb: Math.max(...all.map((m) => m.rssPeakMb)),
    windowMonotonicUs: (all[0] as Measurement).windowMonotonicUs,
    qualifiedWindows: counted.length,
  };
}

export const pairsOf = (result: ScenarioResult) =>
  result.windows ?? [{ latchkey: result.latchkey, betterAuth: result.betterAuth }];
export const sideWindows = (result: ScenarioResult, side: "latchkey" | "betterAuth") =>
  pairsOf(result)
    .map((p) => p[side])
    .filter((m): m is Measurement => m !== null);

/** A ratio's median and range over the pairs where both windows qualify, and how many pairs were recorded. */
export interface PairSpread extends Spread {
  /** Pairs with both windows measured (skipped halves left out): `n` of `pairs` were used. */
  pairs: number;
}

/**
 * Per recorded pair of windows, a figure of both sides; its median and range over the pairs in which both windows
 * completed at least MIN_OPS operations. Null when no pair qualifies.
 */
function pairSpread(
  result: ScenarioResult,
  of: (lk: Measurement, ba: Measurement) => number | null,
): PairSpread | null {
  const values: number[] = [];
  let pairs = 0;
  for (const { latchkey, betterAuth } of pairsOf(result)) {
    if (!latchkey || !betterAuth) continue;
    pairs += 1;
    if (!qualifies(latchkey) || !qualifies(betterAuth)) continue;
    const v = of(latchkey, betterAuth);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  const s = spread(values);
  return s === null ? null : { ...s, pairs };
}

/** How many recorded pairs a scenario has with both sides measured (whether or not they qualify). */
export function measuredPairs(result: ScenarioResult): number {
  return pairsOf(result).filter((p) => p.latchkey && p.betterAuth).length;
}

/** Latchkey's throughput over Better Auth's, per pair of windows. */
export const ratioSpread = (result: ScenarioResult) =>
  pairSpread(result, (lk, ba) => (ba.opsPerSec === 0 ? null : lk.opsPerSec / ba.opsPerSec));
/** Better Auth's application CPU per operation over Latchkey's, per pair of windows. */
export const cpuRatioSpread = (result: ScenarioResult) => pairSpread(result, (lk, ba) => ba.cpuMsPerOp / lk.cpuMsPerOp);
/** The same with the database's CPU added to each side (PostgreSQL; null where it was not sampled). */
export const totalCpuRatioSpread = (result: ScenarioResult) =>
  pairSpread(result, (lk, ba) =>
    lk.dbCpuMsPerOp === null || ba.dbCpuMsPerOp === null
      ? null
      : (ba.cpuMsPerOp + ba.dbCpuMsPerOp) / (lk.cpuMsPerOp + lk.dbCpuMsPerOp),
  );

/** One side's figure over its windows that qualify (the single window when the result has no repeats). */
export function sideSpread(
  result: ScenarioResult,
  side: "latchkey" | "betterAuth",
  pick: (m: Measurement) => number | null,
): Spread | null {
  const values = sideWindows(result, side)
    .filter(qualifies)
    .map(pick)
    .filter((v): v is number => v !== null);
  return spread(values);
}

/** The median of the per-window throughput ratios. */
export function ratio(result: ScenarioResult): number | null {
  return ratioSpread(result)?.median ?? null;
}

/**
 * Better Auth's server CPU per operation over Latchkey's: the same comparison as `ratio` on a quiet machine
 * (a saturated server does 1000 / CPU-ms operations a second), and much less sensitive to other load on the host.
 */
export function cpuRatio(result: ScenarioResult): number | null {
  return cpuRatioSpread(result)?.median ?? null;
}
