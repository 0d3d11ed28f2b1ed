import autocannon, { type SequenceStep } from "autocannon";
import type { ServerProcess } from "./process.ts";

/** One measured window of one scenario against one server. */
export interface Measurement {
  /** Successful operations per second in the window (requests, or round trips for sequences). */
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses in the window that were not 2xx or failed the scenario's check, plus socket errors/timeouts. */
  errors: number;
  /** Successful operations counted in the window. */
  ops: number;
  /** Server process CPU time (all threads) per successful operation, in ms. */
  cpuMsPerOp: number;
  /**
   * CPU time of the database server's processes per successful operation, in ms (PostgreSQL: the cluster's
   * postmaster, backends and background processes, from /proc/<pid>/stat); null where the database runs inside
   * the application process (memory, libSQL files), so the application figure already holds it.
   */
  dbCpuMsPerOp: number | null;
  windowMs: number;
  /** Highest resident set size of the server sampled in the window (every 250 ms), in MiB. */
  rssPeakMb: number;
  /** The window on the system's monotonic clock (µs), which V8 CPU profiles also use. */
  windowMonotonicUs: [number, number];
  /**
   * Set on a median of several windows (`medianMeasurement`): how many of them completed at least MIN_OPS operations
   * and so entered the medians (0: none did, and the figures are NaN). Absent on a single window.
   */
  qualifiedWindows?: number;
}

export interface LoadPlan {
  connections: number;
  warmupMs: number;
  measureMs: number;
  /** The request sequence each connection loops over. */
  steps: SequenceStep[];
  /** Index of the step whose successful response completes one operation (the last, for round trips). */
  completesOn: number;
  /** The statuses that can count (before `check`): 2xx unless set (a callback's answer is a 302). */
  okStatus?: (status: number) => boolean;
  /** Checks a response beyond its status: e.g. get-session returned a session, not `null`. */
  check: (step: number, status: number, body: string, headers: Record<string, string>) => boolean;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

/**
 * One continuous autocannon run: `warmupMs` of load that is not counted, then a `measureMs` window in which
 * every completed operation, its latency (from the sequence's first request to its completing response) and
 * the server's CPU time are recorded. The load keeps running across the window edges.
 */
export async function measure(
  server: ServerProcess,
  plan: LoadPlan,
  databaseCpuMs: (() => number) | null = null,
): Promise<Measurement> {
  let measuring = false;
  let ops = 0;
  let errors = 0;
  const latencies: number[] = [];

  const steps: SequenceStep[] = plan.steps.map((step, index) => ({
    ...step,
    setupRequest: (request, context) => {
      if (index === 0) context.startedAt = performance.now();
      return step.setupRequest ? step.setupRequest(request, context) : request;
    },
    onResponse: (status, body, context, headers) => {
      step.onResponse?.(status, body, context, headers);
      const statusOk = plan.okStatus ? plan.okStatus(status) : status >= 200 && status < 300;
      const ok = statusOk && plan.check(index, status, body, headers);
      if (!measuring) return;
      if (!ok) {
        errors += 1;
        return;
      }
      if (index === plan.completesOn) {
        ops += 1;
        latencies.push(performance.now() - (context.startedAt as number));
      }
    },
  }));

  const totalMs = plan.warmupMs + plan.measureMs;
  let cpuStart = 0;
  let cpuEnd = 0;
  let dbStart = 0;
  let dbEnd = 0;
  let windowStart = 0;
  let windowEnd = 0;
  const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
  const window: [number, number] = [0, 0];
  let rssPeakMb = 0;
  const sampleRss = () => {
    if (!measuring) return;
    try {
      rssPeakMb = Math.max(rssPeakMb, server.rssMb());
    } catch {
      // the process is gone; the run reports its errors
    }
  };
  const rssTimer = setInterval(sampleRss, 250);
  const instance = autocannon({
    url: server.baseUrl,
    connections: plan.connections,
    // A margin past the window so the load is still running when it closes; stopped right after.
    duration: Math.ceil((totalMs + 1_000) / 1000),
    timeout: 20,
    requests: steps,
  });
  instance.on("reqError", () => {
    if (measuring) errors += 1;
  });
  const finished = new Promise<void>((resolve) => instance.once("done", () => resolve()));
  await new Promise<void>((resolve) => {
    setTimeout(() => {
      cpuStart = server.cpuMs();
      if (databaseCpuMs) dbStart = databaseCpuMs();
      windowStart = performance.now();
      window[0] = monotonicUs();
      measuring = true;
      sampleRss();
    }, plan.warmupMs);
    setTimeout(() => {
      sampleRss();
      measuring = false;
      windowEnd = performance.now();
      window[1] = monotonicUs();
      cpuEnd = server.cpuMs();
      if (databaseCpuMs) dbEnd = databaseCpuMs();
      resolve();
    }, totalMs);
  });
  clearInterval(rssTimer);
  instance.stop();
  await finished;

  latencies.sort((a, b) => a - b);
  const windowMs = windowEnd - windowStart;
  return {
    opsPerSec: (ops * 1000) / windowMs,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors,
    ops,
    cpuMsPerOp: ops === 0 ? Number.NaN : (cpuEnd - cpuStart) / ops,
    dbCpuMsPerOp: databaseCpuMs === null ? null : ops === 0 ? Number.NaN : (dbEnd - dbStart) / ops,
    windowMs,
    rssPeakMb,
    windowMonotonicUs: window,
  };
}
