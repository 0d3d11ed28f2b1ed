/**
 * How long a run takes on a quiet machine, from its window arithmetic: every measured window is warm-up + window
 * (times the scenario's `windowScale`), plus the settling before it (a garbage collection and both servers idle for
 * 300 ms each); every configuration starts two servers and seeds them over HTTP. Printed at the start of a run.
 */
export interface EstimateInput {
  stores: number;
  repeat: number;
  warmupMs: number;
  measureMs: number;
  /** Per configuration (one pair of servers), the `windowScale` of each scenario it measures (1 when unset). */
  configurations: { part: string; scales: number[] }[];
  floor: boolean;
  hashCap: boolean;
  workers: boolean;
}

/** Settling before a window: `/__bench/gc`, then `waitForIdle` on both servers (300 ms each at least). */
export const SETTLE_S = 1;
/** Starting two servers (Node + tsx), migrating their databases and seeding 32 users and 2 keys over HTTP. */
export const CONFIGURATION_S = 15;
/** The hash-cap part: two servers, 200 sign-ins each. */
const HASH_CAP_S = 30;
/** Workers: three esbuild bundles and 8 rounds of three workerd cold starts. */
const WORKERS_S = 40;

export interface Estimate {
  totalS: number;
  /** Seconds per part, largest first. */
  parts: { part: string; seconds: number; windows: number }[];
}

export function estimateRun(input: EstimateInput): Estimate {
  const byPart = new Map<string, { seconds: number; windows: number }>();
  const add = (part: string, seconds: number, windows = 0) => {
    const current = byPart.get(part) ?? { seconds: 0, windows: 0 };
    byPart.set(part, { seconds: current.seconds + seconds, windows: current.windows + windows });
  };
  const windowS = (scale: number) => ((input.warmupMs + input.measureMs) * scale) / 1000 + SETTLE_S;
  for (let store = 0; store < input.stores; store += 1)
    for (const { part, scales } of input.configurations) {
      add(part, CONFIGURATION_S);
      // Both servers, `repeat` windows each.
      for (const scale of scales) add(part, 2 * input.repeat * windowS(scale), 2 * input.repeat);
    }
  if (input.floor) add("Hono floor", windowS(1), 1);
  if (input.hashCap) add("hash cap", HASH_CAP_S);
  if (input.workers) add("Workers", WORKERS_S);
  const parts = [...byPart.entries()].map(([part, v]) => ({ part, ...v })).sort((a, b) => b.seconds - a.seconds);
  return { totalS: parts.reduce((sum, p) => sum + p.seconds, 0), parts };
}

const minutes = (s: number) => `${Math.round(s / 60)} min`;

export function describeEstimate(estimate: Estimate): string {
  return `about ${minutes(estimate.totalS)} on a quiet machine (${estimate.parts
    .map((p) => `${p.part} ${minutes(p.seconds)}${p.windows ? ` in ${p.windows} windows` : ""}`)
    .join(", ")}); a busy machine adds to the settling and start-up`;
}
