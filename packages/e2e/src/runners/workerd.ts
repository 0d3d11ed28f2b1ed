// workerd runner (Node): bundle the e2e worker with esbuild, run it in Miniflare, then
//  1. the smoke test: the bundled standalone handler answers GET /auth/get-session;
//  2. the suite inside the isolate (POST /__e2e/run), with the argon2 exchange;
//  3. the suite again from outside, every request crossing workerd's HTTP boundary.
// `tsx src/runners/workerd.ts [--hashes <file>]`.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { planSuite, runSuite, summaryLine } from "../harness/runner.ts";
import { JOURNEYS } from "../journeys/index.ts";
import { E2E_BASE_URL } from "../app.ts";
import type { HashEntry } from "../argon2-exchange.ts";
import { REPORT_PREFIX, runFailed, type RuntimeReport } from "./run-runtime.ts";
import { bundleViolations, bundleWorker, startWorker } from "../workerd/index.ts";

const at = process.argv.indexOf("--hashes");
const incoming = at === -1 ? null : (JSON.parse(await readFile(process.argv[at + 1]!, "utf8")) as HashEntry[]);

const bundle = await bundleWorker(fileURLToPath(new URL("./workerd-worker.ts", import.meta.url)));
const violations = bundleViolations(bundle);
if (violations.length) {
  console.log(`not ok - the e2e worker bundle is clean: ${violations.join("; ")}`);
  process.exit(1);
}
const worker = await startWorker(bundle.code);
let failed = false;
try {
  const smoke = await worker.fetch(new Request(`${E2E_BASE_URL}/auth/get-session`));
  const smokeBody = await smoke.text();
  const smokeOk = smoke.status === 200 && smokeBody === "null";
  console.log(
    `${smokeOk ? "ok" : "not ok"} - smoke: bundled handler answers GET /auth/get-session in workerd (${smoke.status} ${smokeBody.slice(0, 200)})`,
  );
  failed ||= !smokeOk;

  const run = await worker.fetch(
    new Request("http://e2e.internal/__e2e/run", { method: "POST", body: JSON.stringify({ incoming }) }),
  );
  if (run.status !== 200)
    throw new Error(`the in-isolate run answered ${run.status}: ${(await run.text()).slice(0, 1000)}`);
  const { lines } = (await run.json()) as { lines: string[] };
  for (const line of lines) console.log(line);
  const reportLine = lines.find((l) => l.startsWith(REPORT_PREFIX));
  if (!reportLine) throw new Error("the in-isolate run printed no report");
  failed ||= runFailed(JSON.parse(reportLine.slice(REPORT_PREFIX.length)) as RuntimeReport);

  console.log("# the suite over workerd's HTTP boundary (requests from Node, handler in workerd)");
  const overHttp = await runSuite(
    await planSuite(
      {
        handler: (request) => worker.fetch(request),
        baseUrl: E2E_BASE_URL,
        basePath: "/auth",
        async latestOtp(email: string) {
          const res = await worker.fetch(
            new Request(`http://e2e.internal/__e2e/otp?email=${encodeURIComponent(email)}`),
          );
          return ((await res.json()) as { code: string | null }).code ?? undefined;
        },
      },
      JOURNEYS,
    ),
    (line) => console.log(line),
  );
  console.log(`# over HTTP: ${summaryLine(overHttp).replace(/^e2e: /, "")}`);
  failed ||= overHttp.failed.length > 0 || overHttp.passed.length === 0;
} catch (error) {
  console.log(`not ok - workerd run: ${error instanceof Error ? error.stack : String(error)}`);
  failed = true;
} finally {
  await worker.dispose();
}
process.exit(failed ? 1 : 0);
