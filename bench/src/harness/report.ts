import type { Measurement } from "./load.ts";

/** One scenario on one store: both servers' measurements (or why it was skipped). */
export interface ScenarioResult {
  id: string;
  title: string;
  store: "memory" | "libsql";
  unit: string;
  latchkey: Measurement | null;
  betterAuth: Measurement | null;
  /** Target ratio Latchkey/Better Auth, if the issue sets one. */
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

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "-");
const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? fmt(n, 2) : n < 100 ? fmt(n, 1) : fmt(n, 0)) : "-");

export function ratio(result: ScenarioResult): number | null {
  if (!result.latchkey || !result.betterAuth || result.betterAuth.opsPerSec === 0) return null;
  return result.latchkey.opsPerSec / result.betterAuth.opsPerSec;
}

/**
 * Better Auth's server CPU per operation over Latchkey's: the same comparison as `ratio` on a quiet machine
 * (a saturated server does 1000 / CPU-ms operations a second), and much less sensitive to other load on the host.
 */
export function cpuRatio(result: ScenarioResult): number | null {
  if (!result.latchkey || !result.betterAuth) return null;
  const r = result.betterAuth.cpuMsPerOp / result.latchkey.cpuMsPerOp;
  return Number.isFinite(r) ? r : null;
}

function verdict(result: ScenarioResult, floor: Measurement | null): string {
  const r = ratio(result);
  const c = cpuRatio(result);
  const parts: string[] = [];
  if (result.target !== null && r !== null) {
    const cpu = c === null ? "" : ` (CPU/op: ${c >= result.target ? "met" : "missed"})`;
    parts.push(`>= ${result.target}x: ${r >= result.target ? "met" : "MISSED"}${cpu}`);
  }
  if (result.floorTarget !== null && floor && result.latchkey) {
    const share = result.latchkey.opsPerSec / floor.opsPerSec;
    const cpuShare = floor.cpuMsPerOp / result.latchkey.cpuMsPerOp;
    const target = result.floorTarget;
    parts.push(`${fmt(share * 100)}% of floor, CPU/op ${fmt(cpuShare * 100)}% (>= ${fmt(target * 100)}%: ${share >= target ? "met" : "MISSED"}, CPU/op: ${cpuShare >= target ? "met" : "missed"})`);
  }
  return parts.join("; ") || "-";
}

/** The results as a Markdown table (also what docs/benchmarks.md shows). */
export function markdownTable(results: ScenarioResult[], floor: Measurement | null): string {
  const head =
    "| scenario | store | Latchkey ops/s | p50 ms | p99 ms | err | CPU ms/op | Better Auth ops/s | p50 ms | p99 ms | err | CPU ms/op | ratio LK/BA | CPU/op BA/LK | target |\n" +
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|";
  const rows = results.map((r) => {
    if (r.skipped && !r.latchkey && !r.betterAuth) return `| ${r.title} | ${r.store} | skipped: ${r.skipped} | | | | | | | | | | | | |`;
    const lk = r.latchkey;
    const ba = r.betterAuth;
    const cells = (m: Measurement | null) => (m ? [fmt(m.opsPerSec), ms(m.p50Ms), ms(m.p99Ms), String(m.errors), ms(m.cpuMsPerOp)] : ["-", "-", "-", "-", "-"]);
    const rr = ratio(r);
    const cr = cpuRatio(r);
    return `| ${r.title} | ${r.store} | ${cells(lk).join(" | ")} | ${cells(ba).join(" | ")} | ${rr === null ? "-" : `${fmt(rr, 1)}x`} | ${cr === null ? "-" : `${fmt(cr, 1)}x`} | ${r.skipped ? `Latchkey skipped: ${r.skipped}` : verdict(r, floor)} |`;
  });
  return [head, ...rows].join("\n");
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
  return `    ${label.padEnd(12)} ${fmt(m.opsPerSec).padStart(8)} ops/s  p50 ${ms(m.p50Ms).padStart(6)} ms  p99 ${ms(m.p99Ms).padStart(6)} ms  err ${String(m.errors).padStart(4)}  CPU ${ms(m.cpuMsPerOp).padStart(6)} ms/op`;
}
