import type { Measurement } from "./load.ts";
import { qualifies } from "./report-figures.ts";
import { fmt, ms } from "./report-format.ts";

// The scale part's tables: the hot paths at a small and a large seed, and the sweeps of expired rows.

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
