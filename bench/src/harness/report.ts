import type { Measurement } from "./load.ts";

/** One scenario on one store: both servers' measurements (or why it was skipped). */
export interface ScenarioResult {
  id: string;
  title: string;
  store: "memory" | "libsql" | "postgres";
  unit: string;
  latchkey: Measurement | null;
  betterAuth: Measurement | null;
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
    parts.push(
      `${fmt(share * 100)}% of floor, CPU/op ${fmt(cpuShare * 100)}% (>= ${fmt(target * 100)}%: ${share >= target ? "met" : "MISSED"}, CPU/op: ${cpuShare >= target ? "met" : "missed"})`,
    );
  }
  return parts.join("; ") || "-";
}

/** The results as a Markdown table (also what docs/benchmarks.md shows). */
export function markdownTable(results: ScenarioResult[], floor: Measurement | null): string {
  const head =
    "| scenario | store | Latchkey ops/s | p50 ms | p99 ms | err | CPU ms/op | Better Auth ops/s | p50 ms | p99 ms | err | CPU ms/op | ratio LK/BA | CPU/op BA/LK | target |\n" +
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|";
  const rows = results.map((r) => {
    if (r.skipped && !r.latchkey && !r.betterAuth)
      return `| ${r.title} | ${r.store} | skipped: ${r.skipped} | | | | | | | | | | | | |`;
    const lk = r.latchkey;
    const ba = r.betterAuth;
    const cells = (m: Measurement | null) =>
      m ? [fmt(m.opsPerSec), ms(m.p50Ms), ms(m.p99Ms), String(m.errors), ms(m.cpuMsPerOp)] : ["-", "-", "-", "-", "-"];
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
  const ops = (m: Measurement | null) => (m ? fmt(m.opsPerSec) : "-");
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
  latchkey: { ms: number; cpuMs: number; deleted: number | null } | string;
  betterAuth: { ms: number; cpuMs: number; deleted: number | null } | string;
}

export function markdownSweeps(rows: SweepResult[]): string {
  const cell = (v: SweepResult["latchkey"]) =>
    typeof v === "string"
      ? v
      : `${ms(v.ms)} ms wall, ${ms(v.cpuMs)} ms CPU${v.deleted === null ? "" : `, ${fmt(v.deleted)} rows deleted`}`;
  const head = "| sweep | store | seed (users) | Latchkey | Better Auth |\n|---|---|--:|---|---|";
  return [
    head,
    ...rows.map((r) => `| ${r.name} | ${r.store} | ${fmt(r.users)} | ${cell(r.latchkey)} | ${cell(r.betterAuth)} |`),
  ].join("\n");
}
