import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type RunSummary, replaceGenerated, unquotable } from "./harness/docs.ts";

// `pnpm bench:docs`: writes the last finished `pnpm bench` run (bench/results/latest.md) into docs/benchmarks.md,
// between its markers. Refuses a run stopped part-way, a --quick run and a run of fewer than 5 windows per scenario.
const benchDir = fileURLToPath(new URL("..", import.meta.url));
const docPath = `${benchDir}../docs/benchmarks.md`;
const latest = JSON.parse(readFileSync(`${benchDir}results/latest.json`, "utf8")) as { run?: RunSummary };
if (!latest.run) throw new Error("bench/results/latest.json predates --repeat: run `pnpm bench` again");
const refused = unquotable(latest.run);
if (refused) {
  process.stderr.write(`bench:docs: not writing docs/benchmarks.md: ${refused}\n`);
  process.exit(1);
}
const report = readFileSync(`${benchDir}results/latest.md`, "utf8");
writeFileSync(docPath, replaceGenerated(readFileSync(docPath, "utf8"), latest.run, report));
process.stdout.write("docs/benchmarks.md: generated block rewritten from bench/results/latest.md\n");
