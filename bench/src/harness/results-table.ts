import type { Measurement } from "./load.ts";
import {
  cpuRatio,
  cpuRatioSpread,
  measuredPairs,
  type PairSpread,
  pairsOf,
  qualifies,
  ratio,
  ratioSpread,
  type ScenarioResult,
  sideSpread,
  sideWindows,
  type Spread,
  totalCpuRatioSpread,
} from "./report-figures.ts";
import { fmt, ms } from "./report-format.ts";

// The results table of a run: both sides' figures per scenario and store, the ratios and the targets.

/**
 * The cell of a side where none of its windows completed MIN_OPS operations: "too few ops (1)", one count per window
 * ("too few ops (0, 1, 0)"); null where at least one window qualifies.
 */
function tooFewOps(result: ScenarioResult, side: "latchkey" | "betterAuth"): string | null {
  const windows = sideWindows(result, side);
  if (windows.length === 0 || windows.some(qualifies)) return null;
  return `too few ops (${windows.map((m) => fmt(m.ops)).join(", ")})`;
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
