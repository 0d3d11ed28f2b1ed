import { describe, expect, it } from "vitest";
import { BASELINE_BLOCK, GENERATED_END, GENERATED_START, replaceGenerated, unquotable } from "./docs.ts";

describe("docs generator", () => {
  const run = { final: true, repeat: 5, quick: false, command: "pnpm bench --repeat=5 --store=libsql,postgres" };

  it("replaces only the generated block with the run's report", () => {
    const doc = `# Benchmarks\n\nprose\n\n${GENERATED_START}\nold figures\n${GENERATED_END}\n\nmore prose\n`;
    const out = replaceGenerated(doc, run, "| new | table |\n");
    expect(out).toContain("| new | table |");
    expect(out).not.toContain("old figures");
    expect(out.startsWith("# Benchmarks\n\nprose\n\n")).toBe(true);
    expect(out.endsWith(`${GENERATED_END}\n\nmore prose\n`)).toBe(true);
    expect(out).toContain("`pnpm bench --repeat=5 --store=libsql,postgres`");
    expect(() => replaceGenerated("# no markers", run, "x")).toThrow(/markers/);
  });

  it("writes a baseline run into its own block and leaves the main run's block as it was", () => {
    const doc = [
      "# Benchmarks",
      GENERATED_START,
      "main figures",
      GENERATED_END,
      "## Before and after",
      BASELINE_BLOCK.start,
      "old baseline figures",
      BASELINE_BLOCK.end,
      "",
    ].join("\n");
    const baselineRun = { ...run, command: "pnpm bench --baseline=3dea209 --repeat=5 --store=libsql,postgres" };
    const out = replaceGenerated(doc, baselineRun, "| current | 3dea209 |\n", BASELINE_BLOCK);
    expect(out).toContain(`${GENERATED_START}\nmain figures\n${GENERATED_END}`);
    expect(out).not.toContain("old baseline figures");
    expect(out).toContain("| current | 3dea209 |");
    expect(out).toContain("(bench/results/baseline.md, copied unchanged)");
    expect(() => replaceGenerated("# only the main block", baselineRun, "x", BASELINE_BLOCK)).toThrow(/baseline.md/);
  });

  it("refuses a run stopped part-way, a quick run and fewer than 5 windows", () => {
    expect(unquotable(run)).toBeNull();
    expect(unquotable({ ...run, final: false })).toMatch(/did not finish/);
    expect(unquotable({ ...run, quick: true })).toMatch(/smoke/);
    expect(unquotable({ ...run, repeat: 2 })).toMatch(/2 window/);
  });
});
