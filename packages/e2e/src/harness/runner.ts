import { E2eClient } from "./client.ts";
import type { E2eTarget, Journey } from "./journey.ts";

/** A journey ready to run, or skipped with the reason (a feature that is not installed). */
export interface PlannedCase {
  name: string;
  skipReason: string | null;
  run(): Promise<void>;
}

/** The minimal test-runner surface the suite needs: Vitest's `it`, or the built-in sequential runner. */
export interface TestRegistrar {
  test(name: string, run: () => Promise<void>): void;
  skip(name: string, reason: string): void;
}

export interface SuiteResult {
  passed: string[];
  failed: Array<{ name: string; error: string }>;
  skipped: Array<{ name: string; reason: string }>;
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Reads `/openapi.json` once and decides which journeys run: a feature's journey runs when its paths are documented.
 *
 * @example
 * import { planSuite, JOURNEYS } from "@latchkey/e2e";
 * const cases = await planSuite(target, JOURNEYS);
 */
export async function planSuite(target: E2eTarget, journeys: readonly Journey[]): Promise<PlannedCase[]> {
  const probe = new E2eClient(target, "203.0.113.254");
  const doc = await probe.call("GET", "/openapi.json");
  const paths = new Set(Object.keys((doc.json as { paths?: Record<string, unknown> } | null)?.paths ?? {}));
  return journeys.map((journey, index) => {
    const missing = (journey.requiresPaths ?? []).filter((p) => !paths.has(p));
    let skipReason: string | null = null;
    if (missing.length) skipReason = `feature not installed (no ${missing.join(", ")} in /openapi.json)`;
    else if (journey.requiresOtpCapture && !target.latestOtp) skipReason = "the target captures no OTPs";
    // Distinct documentation-range addresses: one rate-limit bucket per journey, per run.
    const ip = `198.18.${Math.floor(Math.random() * 250)}.${index + 1}`;
    return {
      name: journey.name,
      skipReason,
      run: () =>
        journey.run({
          client: new E2eClient(target, ip),
          target,
          email: (label) => `${label}-${randomHex(6)}@e2e.example`,
        }),
    };
  });
}

/**
 * Registers planned cases with a test framework (Vitest on Node).
 *
 * @example
 * import { it } from "vitest";
 * registerSuite(cases, { test: (n, f) => it(n, f), skip: (n) => it.skip(n, () => {}) });
 */
export function registerSuite(cases: readonly PlannedCase[], registrar: TestRegistrar): void {
  for (const c of cases) {
    if (c.skipReason === null) registrar.test(c.name, c.run);
    else registrar.skip(c.name, c.skipReason);
  }
}

/**
 * Runs planned cases one after another and reports TAP-like lines; the runner for Bun, Deno and workerd.
 *
 * @example
 * const result = await runSuite(cases, console.log);
 * if (result.failed.length) process.exitCode = 1;
 */
export async function runSuite(cases: readonly PlannedCase[], log: (line: string) => void): Promise<SuiteResult> {
  const result: SuiteResult = { passed: [], failed: [], skipped: [] };
  let n = 0;
  for (const c of cases) {
    n += 1;
    if (c.skipReason !== null) {
      result.skipped.push({ name: c.name, reason: c.skipReason });
      log(`ok ${n} - ${c.name} # SKIP ${c.skipReason}`);
      continue;
    }
    try {
      await c.run();
      result.passed.push(c.name);
      log(`ok ${n} - ${c.name}`);
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      result.failed.push({ name: c.name, error: message });
      log(`not ok ${n} - ${c.name}: ${message}`);
      if (error instanceof Error && error.stack && !(error.name === "E2eAssertionError"))
        log(`  ${error.stack.split("\n").slice(1, 6).join("\n  ")}`);
    }
  }
  return result;
}

/**
 * The closing line every runner prints: `e2e: N passed, N failed, N skipped`.
 *
 * @example
 * console.log(summaryLine(result));
 */
export function summaryLine(result: SuiteResult): string {
  return `e2e: ${result.passed.length} passed, ${result.failed.length} failed, ${result.skipped.length} skipped`;
}
