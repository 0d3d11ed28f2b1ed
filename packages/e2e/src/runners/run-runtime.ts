import { createE2eAuth, type E2eAuthOptions } from "../app.ts";
import { exchangeHashes, type ExchangeResult, type HashEntry } from "../argon2-exchange.ts";
import { planSuite, runSuite, summaryLine, type SuiteResult } from "../harness/runner.ts";
import { JOURNEYS } from "../journeys/index.ts";

/** The line a child runner prints so the Node test can read its result. */
export const REPORT_PREFIX = "e2e-report: ";

export interface RuntimeReport {
  runtime: string;
  plugins: string[];
  result: SuiteResult;
  /** Null when no hash exchange was asked for. */
  argon2: ExchangeResult | null;
}

export interface RunOptions extends E2eAuthOptions {
  /** Hashes written on other runtimes, to verify here; null skips the exchange. */
  incoming: HashEntry[] | null;
  log: (line: string) => void;
}

/**
 * Runs every journey against a fresh e2e auth on the current runtime, then the argon2 exchange, and logs
 * TAP-like lines, the closing `e2e: N passed, N failed, N skipped` line and the JSON report line.
 *
 * @example
 * const report = await runOnThisRuntime("bun", { incoming: null, log: console.log });
 * process.exit(runFailed(report) ? 1 : 0);
 */
export async function runOnThisRuntime(runtime: string, options: RunOptions): Promise<RuntimeReport> {
  const { target, plugins } = createE2eAuth(options);
  options.log(`# e2e on ${runtime}; features: ${plugins.length ? plugins.join(", ") : "core only"}`);
  const result = await runSuite(await planSuite(target, JOURNEYS), options.log);
  const argon2 = options.incoming ? await exchangeHashes(runtime, options.incoming) : null;
  if (argon2) {
    options.log(`# argon2id engine on ${runtime}: ${argon2.engine}`);
    for (const v of argon2.verified)
      options.log(`${v.ok ? "ok" : "not ok"} - verifies a hash written on ${v.from} (${v.engine})`);
  }
  const report: RuntimeReport = { runtime, plugins, result, argon2 };
  options.log(summaryLine(result));
  options.log(`${REPORT_PREFIX}${JSON.stringify(report)}`);
  return report;
}

/**
 * True when the run must fail its process: a failed journey, no journey at all, or a hash that did not verify.
 *
 * @example
 * if (runFailed(report)) Deno.exit(1);
 */
export function runFailed(report: RuntimeReport): boolean {
  return (
    report.result.failed.length > 0 ||
    report.result.passed.length === 0 ||
    (report.argon2?.verified.some((v) => !v.ok) ?? false)
  );
}
