import type { Measurement } from "./load.ts";

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

export interface SizeResult {
  name: string;
  latchkey: number | null;
  betterAuth: number | null;
  /** Lower is better here: target is the maximum Latchkey/Better Auth ratio. */
  maxRatio: number;
  unit: string;
  skipped: string | null;
  detail?: string;
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "-";
const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? fmt(n, 2) : n < 100 ? fmt(n, 1) : fmt(n, 0)) : "-");

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
 * which made a 55.7x "ratio" out of a single sign-in. docs/benchmarks.md gives the reasoning.
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

const pairsOf = (result: ScenarioResult) =>
  result.windows ?? [{ latchkey: result.latchkey, betterAuth: result.betterAuth }];
const sideWindows = (result: ScenarioResult, side: "latchkey" | "betterAuth") =>
  pairsOf(result)
    .map((p) => p[side])
    .filter((m): m is Measurement => m !== null);

/**
 * The cell of a side where none of its windows completed MIN_OPS operations: "too few ops (1)", one count per window
 * ("too few ops (0, 1, 0)"); null where at least one window qualifies.
 */
function tooFewOps(result: ScenarioResult, side: "latchkey" | "betterAuth"): string | null {
  const windows = sideWindows(result, side);
  if (windows.length === 0 || windows.some(qualifies)) return null;
  return `too few ops (${windows.map((m) => fmt(m.ops)).join(", ")})`;
}
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
function sideSpread(
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

function verdict(result: ScenarioResult, floor: Measurement | null): string {
  const r = ratio(result);
  const c = cpuRatio(result);
  const parts: string[] = [];
  if (result.target !== null && r !== null) {
    const cpu = c === null ? "" : ` (CPU/op: ${c >= result.target ? "met" : "missed"})`;
    parts.push(`>= ${result.target}x: ${r >= result.target ? "met" : "MISSED"}${cpu}`);
  }
  if (result.floorTarget !== null && floor && qualifies(result.latchkey)) {
    const share = result.latchkey.opsPerSec / floor.opsPerSec;
    const cpuShare = floor.cpuMsPerOp / result.latchkey.cpuMsPerOp;
    const target = result.floorTarget;
    parts.push(
      `${fmt(share * 100)}% of floor, CPU/op ${fmt(cpuShare * 100)}% (>= ${fmt(target * 100)}%: ${share >= target ? "met" : "MISSED"}, CPU/op: ${cpuShare >= target ? "met" : "missed"})`,
    );
  }
  return parts.join("; ") || "-";
}

const times = (n: number) => `${fmt(n, 1)}x`;
const range = (sp: Spread | null, show: (n: number) => string) =>
  sp === null ? "-" : sp.n === 1 ? show(sp.median) : `${show(sp.median)} (${show(sp.min)}–${show(sp.max)})`;
/** A ratio cell: median and range over the qualifying pairs, "3 of 5 pairs" when some were left out. */
const ratioCell = (sp: PairSpread | null, pairs: number) =>
  sp === null
    ? pairs > 0
      ? "too few ops"
      : "-"
    : `${range(sp, times)}${sp.n < sp.pairs ? `, ${sp.n} of ${sp.pairs} pairs` : ""}`;

/** The two sides a results table compares, and which of its columns it has. */
export interface TableColumns {
  sides: [string, string];
  /** Header of the throughput ratio (first side over second). */
  ratio: string;
  /** Header of the CPU-per-operation ratio (second side over first: above 1 the first side costs less). */
  cpuRatio: string;
  work: boolean;
  target: boolean;
}

const MAIN_COLUMNS: TableColumns = {
  sides: ["Latchkey", "Better Auth"],
  ratio: "ratio LK/BA",
  cpuRatio: "CPU/op BA/LK",
  work: true,
  target: true,
};

/**
 * A `--baseline` run: this checkout's Latchkey ("current", in the `latchkey` slot of each result) next to another
 * revision's (in the `betterAuth` slot). Above 1.0x the current checkout is faster or cheaper.
 */
export function baselineColumns(short: string): TableColumns {
  return {
    sides: ["current", short],
    ratio: `ratio current/${short}`,
    cpuRatio: `CPU/op ${short}/current`,
    work: false,
    target: false,
  };
}

/**
 * The results as a Markdown table (also what docs/benchmarks.md shows): per side the median of the windows and, in
 * brackets, their range; the ratios computed per pair of windows, then their median and range. "app + db" adds the
 * database server's CPU (PostgreSQL) to the application's.
 */
export function markdownTable(
  results: ScenarioResult[],
  floor: Measurement | null,
  columns: TableColumns = MAIN_COLUMNS,
): string {
  const withDb = results.some((r) =>
    pairsOf(r).some((p) => p.latchkey?.dbCpuMsPerOp != null || p.betterAuth?.dbCpuMsPerOp != null),
  );
  const sideHead = (name: string) =>
    `${name} ops/s | p50 ms | err | CPU ms/op (app)${withDb ? " | CPU ms/op (app + db)" : ""}`;
  const [a, b] = columns.sides;
  const head =
    `| scenario | store | ${columns.work ? `work per request (${a} vs ${b}) | ` : ""}${sideHead(a)} | ${sideHead(b)} | ${columns.ratio} | ${columns.cpuRatio} (app)${withDb ? ` | ${columns.cpuRatio} (app + db)` : ""}${columns.target ? " | target" : ""} |\n` +
    `|---|---|${columns.work ? "---|" : ""}${"--:|".repeat(withDb ? 5 : 4)}${"--:|".repeat(withDb ? 5 : 4)}--:|--:|${withDb ? "--:|" : ""}${columns.target ? "---|" : ""}`;
  const rows = results.map((r) => {
    const blanks = 2 * (withDb ? 5 : 4) + (withDb ? 3 : 2) - (columns.target ? 0 : 1);
    const work = columns.work ? ` ${r.work || "-"} |` : "";
    if (r.skipped && !r.latchkey && !r.betterAuth)
      return `| ${r.title} | ${r.store} |${work} skipped: ${r.skipped} |${" |".repeat(blanks)}`;
    const cells = (side: "latchkey" | "betterAuth") => {
      if (!r[side]) return Array(withDb ? 5 : 4).fill("-");
      const errors = pairsOf(r).reduce((sum, p) => sum + (p[side]?.errors ?? 0), 0);
      const tooFew = tooFewOps(r, side);
      if (tooFew) return [tooFew, "-", String(errors), "-", ...(withDb ? ["-"] : [])];
      const windows = sideWindows(r, side);
      const used = windows.filter(qualifies).length;
      const out = [
        `${range(
          sideSpread(r, side, (m) => m.opsPerSec),
          (n) => fmt(n),
        )}${used < windows.length ? `, ${used} of ${windows.length} windows` : ""}`,
        ms(sideSpread(r, side, (m) => m.p50Ms)?.median ?? Number.NaN),
        String(errors),
        range(
          sideSpread(r, side, (m) => m.cpuMsPerOp),
          ms,
        ),
      ];
      if (withDb)
        out.push(
          range(
            sideSpread(r, side, (m) => (m.dbCpuMsPerOp === null ? null : m.cpuMsPerOp + m.dbCpuMsPerOp)),
            ms,
          ),
        );
      return out;
    };
    const pairs = measuredPairs(r);
    const ratios = [ratioCell(ratioSpread(r), pairs), ratioCell(cpuRatioSpread(r), pairs)];
    // A store whose database CPU is not sampled (libSQL runs in the server's process) has no such ratio: "-".
    const dbSampled = pairsOf(r).some((p) => p.latchkey?.dbCpuMsPerOp != null && p.betterAuth?.dbCpuMsPerOp != null);
    if (withDb) ratios.push(ratioCell(totalCpuRatioSpread(r), dbSampled ? pairs : 0));
    const target = columns.target ? ` ${r.skipped ? `Latchkey skipped: ${r.skipped}` : verdict(r, floor)} |` : "";
    return `| ${r.title} | ${r.store} |${work} ${cells("latchkey").join(" | ")} | ${cells("betterAuth").join(" | ")} | ${ratios.join(" | ")} |${target}`;
  });
  return [head, ...rows].join("\n");
}

/** The database driver of each side per store, as each server describes its own (`/__bench/features`). */
export interface DriverRow {
  store: string;
  latchkey: string;
  betterAuth: string;
}

export function markdownDrivers(rows: DriverRow[]): string {
  const head = "| store | Latchkey's driver | Better Auth's driver |\n|---|---|---|";
  return [head, ...rows.map((r) => `| ${r.store} | ${r.latchkey} | ${r.betterAuth} |`)].join("\n");
}

export function markdownSizes(sizes: SizeResult[]): string {
  const head = "| measure | Latchkey | Better Auth | ratio LK/BA | target |\n|---|--:|--:|--:|---|";
  const rows = sizes.map((s) => {
    if (s.skipped) return `| ${s.name} | skipped: ${s.skipped} | | | |`;
    const r = s.latchkey !== null && s.betterAuth ? s.latchkey / s.betterAuth : null;
    const met = r === null ? "-" : `<= ${fmt(s.maxRatio * 100)}%: ${r <= s.maxRatio ? "met" : "MISSED"}`;
    return `| ${s.name} | ${s.latchkey === null ? "-" : `${fmt(s.latchkey, 1)} ${s.unit}`} | ${s.betterAuth === null ? "-" : `${fmt(s.betterAuth, 1)} ${s.unit}`} | ${r === null ? "-" : `${fmt(r * 100)}%`} | ${met} |`;
  });
  return [head, ...rows].join("\n");
}

/** A compact console line per scenario while the run is going. */
export function progressLine(label: string, m: Measurement): string {
  const db = m.dbCpuMsPerOp === null ? "" : `  db CPU ${ms(m.dbCpuMsPerOp).padStart(6)} ms/op`;
  const few = m.ops >= MIN_OPS ? "" : `  (${m.ops} ops: too few, under ${MIN_OPS}; not counted)`;
  return `    ${label.padEnd(14)} ${fmt(m.opsPerSec).padStart(8)} ops/s  p50 ${ms(m.p50Ms).padStart(6)} ms  p99 ${ms(m.p99Ms).padStart(6)} ms  err ${String(m.errors).padStart(4)}  CPU ${ms(m.cpuMsPerOp).padStart(6)} ms/op${db}${few}`;
}

/** Resident memory of both servers in one configuration: idle (seeded, after a collection) and the peak under load. */
export interface MemoryResult {
  store: string;
  label: string;
  latchkey: { idleMb: number; peakMb: number } | null;
  betterAuth: { idleMb: number; peakMb: number } | null;
}

export function markdownMemory(rows: MemoryResult[]): string {
  const mb = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? "-" : `${fmt(n)} MiB`);
  const head =
    "| configuration | store | Latchkey idle | Latchkey peak under load | Better Auth idle | Better Auth peak under load | idle LK/BA | peak LK/BA |\n|---|---|--:|--:|--:|--:|--:|--:|";
  const pct = (a: number | undefined, b: number | undefined) => (a && b ? `${fmt((a / b) * 100)}%` : "-");
  return [
    head,
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.store} | ${mb(r.latchkey?.idleMb)} | ${mb(r.latchkey?.peakMb)} | ${mb(r.betterAuth?.idleMb)} | ${mb(r.betterAuth?.peakMb)} | ${pct(r.latchkey?.idleMb, r.betterAuth?.idleMb)} | ${pct(r.latchkey?.peakMb, r.betterAuth?.peakMb)} |`,
    ),
  ].join("\n");
}

/** One hot path at a small and a large seed, both libraries. */
export interface ScaleResult {
  id: string;
  title: string;
  store: "libsql" | "postgres";
  small: { users: number; latchkey: Measurement | null; betterAuth: Measurement | null };
  large: { users: number; latchkey: Measurement | null; betterAuth: Measurement | null };
}

const kept = (small: Measurement | null, large: Measurement | null) =>
  small && large && small.opsPerSec > 0 ? large.opsPerSec / small.opsPerSec : null;
const cpuGrowth = (small: Measurement | null, large: Measurement | null) =>
  small && large ? large.cpuMsPerOp / small.cpuMsPerOp - 1 : null;
const pair = (lk: Measurement | null, ba: Measurement | null) =>
  lk && ba && ba.opsPerSec > 0 ? lk.opsPerSec / ba.opsPerSec : null;
const cpuPair = (lk: Measurement | null, ba: Measurement | null) => (lk && ba ? ba.cpuMsPerOp / lk.cpuMsPerOp : null);

export function markdownScale(results: ScaleResult[]): string {
  const first = results[0];
  const small = first ? fmt(first.small.users) : "small";
  const large = first ? fmt(first.large.users) : "large";
  const x = (n: number | null) => (n === null || !Number.isFinite(n) ? "-" : `${fmt(n, 1)}x`);
  const p = (n: number | null) => (n === null || !Number.isFinite(n) ? "-" : `${fmt(n * 100)}%`);
  const g = (n: number | null) => (n === null || !Number.isFinite(n) ? "-" : `${n >= 0 ? "+" : ""}${fmt(n * 100)}%`);
  const ops = (m: Measurement | null) => (m ? (qualifies(m) ? fmt(m.opsPerSec) : "too few ops") : "-");
  const cpu = (m: Measurement | null) => (m ? ms(m.cpuMsPerOp) : "-");
  const head =
    `| hot path | store | Latchkey ops/s @${small} | @${large} | kept | CPU ms/op @${small} -> @${large} (growth) | Better Auth ops/s @${small} | @${large} | kept | CPU ms/op @${small} -> @${large} (growth) | ratio LK/BA @${small} | @${large} | CPU/op BA/LK @${small} | @${large} | goal: LK keeps >= 90%, ratio holds |\n` +
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|";
  const rows = results.map((r) => {
    const lkKept = kept(r.small.latchkey, r.large.latchkey);
    const rSmall = pair(r.small.latchkey, r.small.betterAuth);
    const rLarge = pair(r.large.latchkey, r.large.betterAuth);
    const cSmall = cpuPair(r.small.latchkey, r.small.betterAuth);
    const cLarge = cpuPair(r.large.latchkey, r.large.betterAuth);
    // Throughput kept, and the same judged by CPU per operation (the figure a busy machine does not skew).
    const cpuKept =
      r.small.latchkey && r.large.latchkey ? r.small.latchkey.cpuMsPerOp / r.large.latchkey.cpuMsPerOp : null;
    const keptVerdict =
      lkKept === null
        ? "-"
        : `kept: ${lkKept >= 0.9 ? "met" : "MISSED"} (CPU/op: ${cpuKept !== null && cpuKept >= 0.9 ? "met" : "missed"})`;
    // "Holds" within the run-to-run noise of one window (10%), by throughput or by CPU per operation.
    const holds =
      rSmall !== null && rLarge !== null && cSmall !== null && cLarge !== null
        ? rLarge >= rSmall * 0.9 || cLarge >= cSmall * 0.9
          ? "ratio: holds"
          : "ratio: FELL"
        : "-";
    return `| ${r.title} | ${r.store} | ${ops(r.small.latchkey)} | ${ops(r.large.latchkey)} | ${p(lkKept)} | ${cpu(r.small.latchkey)} -> ${cpu(r.large.latchkey)} (${g(cpuGrowth(r.small.latchkey, r.large.latchkey))}) | ${ops(r.small.betterAuth)} | ${ops(r.large.betterAuth)} | ${p(kept(r.small.betterAuth, r.large.betterAuth))} | ${cpu(r.small.betterAuth)} -> ${cpu(r.large.betterAuth)} (${g(cpuGrowth(r.small.betterAuth, r.large.betterAuth))}) | ${x(rSmall)} | ${x(rLarge)} | ${x(cSmall)} | ${x(cLarge)} | ${keptVerdict}; ${holds} |`;
  });
  return [head, ...rows].join("\n");
}

/** What a sweep of expired rows cost at the large seed. */
export interface SweepResult {
  store: string;
  users: number;
  name: string;
  latchkey: { ms: number; cpuMs: number; deleted: number | null; eventLoopMaxMs?: number } | string;
  betterAuth: { ms: number; cpuMs: number; deleted: number | null; eventLoopMaxMs?: number } | string;
}

export function markdownSweeps(rows: SweepResult[]): string {
  const cell = (v: SweepResult["latchkey"]) =>
    typeof v === "string"
      ? v
      : `${ms(v.ms)} ms wall, ${ms(v.cpuMs)} ms CPU${v.deleted === null ? "" : `, ${fmt(v.deleted)} rows deleted`}${v.eventLoopMaxMs === undefined ? "" : `, worst event-loop delay ${ms(v.eventLoopMaxMs)} ms`}`;
  const head = "| sweep | store | seed (users) | Latchkey | Better Auth |\n|---|---|--:|---|---|";
  return [
    head,
    ...rows.map((r) => `| ${r.name} | ${r.store} | ${fmt(r.users)} | ${cell(r.latchkey)} | ${cell(r.betterAuth)} |`),
  ].join("\n");
}
