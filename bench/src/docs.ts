import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  BASELINE_BLOCK,
  type GeneratedBlock,
  MAIN_BLOCK,
  type RunSummary,
  replaceGenerated,
  unquotable,
} from "./harness/docs.ts";

// `pnpm bench:docs [main|baseline]`: writes the last finished runs into docs/benchmarks.md, each between its own
// markers: the main run (`pnpm bench`, bench/results/latest.*) and the before/after run (`pnpm bench --baseline=<rev>`,
// bench/results/baseline.*). Without an argument, every run that has results on disk. Refuses (and writes nothing)
// when a chosen run stopped part-way, was a --quick run or recorded fewer than 5 windows per scenario.
const benchDir = fileURLToPath(new URL("..", import.meta.url));
const docPath = `${benchDir}../docs/benchmarks.md`;
const blocks: Record<string, GeneratedBlock> = { main: MAIN_BLOCK, baseline: BASELINE_BLOCK };
const chosen = process.argv.slice(2);
for (const name of chosen)
  if (!blocks[name]) throw new Error(`bench:docs: unknown run "${name}"; one of ${Object.keys(blocks).join(", ")}`);
const jsonOf = (block: GeneratedBlock) => `${benchDir}../${block.source.replace(/\.md$/, ".json")}`;
const names = chosen.length
  ? chosen
  : Object.keys(blocks).filter((name) => existsSync(jsonOf(blocks[name] as GeneratedBlock)));
if (names.length === 0) throw new Error("bench:docs: no run on disk (bench/results/latest.json, baseline.json)");

let doc = readFileSync(docPath, "utf8");
for (const name of names) {
  const block = blocks[name] as GeneratedBlock;
  const latest = JSON.parse(readFileSync(jsonOf(block), "utf8")) as { run?: RunSummary };
  if (!latest.run) throw new Error(`${block.source} predates --repeat: run \`pnpm bench\` again`);
  const refused = unquotable(latest.run);
  if (refused) {
    process.stderr.write(`bench:docs: not writing docs/benchmarks.md: ${name} run (${block.source}): ${refused}\n`);
    process.exit(1);
  }
  doc = replaceGenerated(doc, latest.run, readFileSync(`${benchDir}../${block.source}`, "utf8"), block);
}
writeFileSync(docPath, doc);
process.stdout.write(`docs/benchmarks.md: generated block(s) rewritten: ${names.join(", ")}\n`);
