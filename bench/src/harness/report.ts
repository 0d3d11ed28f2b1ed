import type { Measurement } from "./load.ts";
import { MIN_OPS } from "./report-figures.ts";
import { fmt, ms } from "./report-format.ts";

// The run's report, table by table: the figures (report-figures.ts), the results table (results-table.ts), the scale
// tables (report-scale.ts), and the smaller tables here.
export {
  cpuRatio,
  cpuRatioSpread,
  MIN_OPS,
  measuredPairs,
  medianMeasurement,
  qualifies,
  ratio,
  ratioSpread,
  spread,
  totalCpuRatioSpread,
  type ScenarioResult,
} from "./report-figures.ts";
export { baselineColumns, markdownTable } from "./results-table.ts";
export { markdownScale, markdownSweeps, type ScaleResult, type SweepResult } from "./report-scale.ts";

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
