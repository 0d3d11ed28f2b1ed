// `pnpm bench:bundle [--write] [--runs N]`: bundle budget of the Cloudflare Workers example.
// Fails (exit 1) when the bundle imports a node: module workerd lacks, pulls a native addon, a database driver
// or the explorer script, or grows past the gzip budget. `--write` records the result in docs/runtimes.md.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { GZIP_BUDGET_BYTES, measureWorkerBundle, type BundleReport } from "./measure.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const entry = "examples/cloudflare-workers/src/worker.ts";
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] ?? 7) || 7;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const ms = (value: number) => `${Math.round(value)} ms`;

function markdown(report: BundleReport): string {
  const { bundle, coldStart } = report;
  const top = bundle.byPackage
    .slice(0, 8)
    .map((p) => `| ${p.name} | ${kb(p.bytes)} |`)
    .join("\n");
  return [
    `Measured by \`pnpm bench:bundle --write\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, ${runs} runs).`,
    "",
    "| what | value |",
    "|---|---|",
    `| entry | \`${report.entry}\` (esbuild, ESM, minified, conditions workerd/worker/browser) |`,
    `| raw | ${bundle.bytes.toLocaleString("en")} bytes (${kb(bundle.bytes)}) |`,
    `| gzip | ${bundle.gzipBytes.toLocaleString("en")} bytes (${kb(bundle.gzipBytes)}); budget ${kb(GZIP_BUDGET_BYTES)} |`,
    `| \`node:\` imports | ${bundle.nodeImports.length ? bundle.nodeImports.join(", ") : "none"} |`,
    `| forbidden inputs (@node-rs/argon2, postgres, mongodb, @libsql/client, libsql, explorer script) | ${bundle.forbiddenInputs.length ? bundle.forbiddenInputs.join(", ") : "none"} |`,
    `| cold start in workerd with a D1 binding (Miniflare start + first GET /auth/get-session), median | ${ms(coldStart.auth.medianMs)} |`,
    `| same for a no-op worker, median | ${ms(coldStart.noop.medianMs)} |`,
    `| cost of Latchkey at cold start (difference) | ${ms(coldStart.auth.medianMs - coldStart.noop.medianMs)} |`,
    `| first request alone (builds the auth in the isolate), median; no-op worker | ${ms(coldStart.auth.firstRequestMs)}; ${ms(coldStart.noop.firstRequestMs)} |`,
    `| sign-up in workerd on D1 (one argon2id hash, portable engine, m=19456 t=2 p=1; user, account, session and counters in D1), median of 3 | ${ms(report.signUpMs)} |`,
    "",
    "Largest contributors (bytes in the minified output):",
    "",
    "| package | size |",
    "|---|---|",
    top,
  ].join("\n");
}

const report = await measureWorkerBundle(entry.startsWith("/") ? entry : `${root}${entry}`, { runs });
report.entry = entry;
const text = markdown(report);
console.log(text);

const problems = report.problems;

if (args.includes("--write")) {
  const docs = `${root}docs/runtimes.md`;
  const current = await readFile(docs, "utf8");
  const start = "<!-- bundle-report:start -->";
  const end = "<!-- bundle-report:end -->";
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  if (from === -1 || to === -1) throw new Error(`docs/runtimes.md lacks the ${start} ... ${end} markers`);
  await writeFile(docs, `${current.slice(0, from + start.length)}\n${text}\n${current.slice(to)}`);
  console.log("\nrecorded in docs/runtimes.md");
}

if (problems.length) {
  console.error(`\nbundle check failed:\n- ${problems.join("\n- ")}`);
  process.exit(1);
}
