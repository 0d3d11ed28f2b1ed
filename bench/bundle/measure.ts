import { MIGRATIONS_FOLDERS, readSqlMigrations } from "@latchkey/drizzle-store";
import { migrateD1Database } from "@latchkey/drizzle-store/d1";
import {
  bundleViolations,
  bundleWorker,
  startWorker,
  type RunningWorker,
  type WorkerBundle,
} from "@latchkey/e2e/workerd";

/** Gzip budget for the worker bundle; raise it deliberately, with the reason in docs/runtimes.md. */
export const GZIP_BUDGET_BYTES = 240 * 1024;

/**
 * What fails the budget: `node:` imports workerd lacks, forbidden inputs, or gzip over the budget.
 *
 * @example
 * const problems = budgetProblems(await bundleWorker(entry, { minify: true }));
 */
export function budgetProblems(bundle: WorkerBundle): string[] {
  const problems = bundleViolations(bundle);
  if (bundle.gzipBytes > GZIP_BUDGET_BYTES)
    problems.push(`gzip ${bundle.gzipBytes} bytes is over the budget of ${GZIP_BUDGET_BYTES}`);
  return problems;
}

const NOOP_WORKER = `export default { fetch() { return new Response("ok"); } };`;

export interface ColdStart {
  /** Median ms from `new Miniflare(...)` to the first response, over `runs`. */
  medianMs: number;
  /** Median ms of the first request alone (the isolate builds the auth on it). */
  firstRequestMs: number;
  runs: number[];
}

export interface BundleReport {
  entry: string;
  bundle: WorkerBundle;
  /** `budgetProblems` of the bundle: the report fails when this is not empty. */
  problems: string[];
  coldStart: { auth: ColdStart; noop: ColdStart };
  /** Median ms of a sign-up in workerd on D1: one argon2id hash (m=19456, t=2, p=1) on the portable engine. */
  signUpMs: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// The example's D1 binding, in memory and migrated before any request (as a deployed database already is).
async function startWithD1(script: string, bindings: Record<string, string>): Promise<RunningWorker> {
  const worker = await startWorker(script, bindings, { d1: { databases: { DB: "DB" } } });
  await migrateD1Database(await worker.d1("DB"), readSqlMigrations(MIGRATIONS_FOLDERS.sqlite));
  return worker;
}

async function coldStart(
  script: string,
  bindings: Record<string, string>,
  path: string,
): Promise<{ total: number; first: number }> {
  const started = performance.now();
  const worker = await startWorker(script, bindings, { d1: { databases: { DB: "DB" } } });
  const ready = performance.now();
  // Not timed: the migration stands for the database a deployed worker finds ready.
  await migrateD1Database(await worker.d1("DB"), readSqlMigrations(MIGRATIONS_FOLDERS.sqlite));
  const migrated = performance.now();
  const res = await worker.fetch(new Request(`https://bench.example${path}`));
  await res.arrayBuffer();
  const done = performance.now();
  await worker.dispose();
  if (res.status !== 200) throw new Error(`cold start request answered ${res.status}`);
  return { total: ready - started + (done - migrated), first: done - migrated };
}

function summarize(samples: Array<{ total: number; first: number }>): ColdStart {
  const runs = samples.map((s) => s.total);
  return { medianMs: median(runs), firstRequestMs: median(samples.map((s) => s.first)), runs };
}

async function signUpTime(script: string, bindings: Record<string, string>, runs: number): Promise<number> {
  const worker = await startWithD1(script, bindings);
  try {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const res = await worker.fetch(
        new Request("https://bench.example/auth/sign-up/email", {
          method: "POST",
          headers: { "content-type": "application/json", "cf-connecting-ip": `198.51.100.${i}` },
          body: JSON.stringify({ email: `bench${i}@bench.example`, password: "correct horse battery" }),
        }),
      );
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`sign-up answered ${res.status}`);
      times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    await worker.dispose();
  }
}

/**
 * Bundles the worker example like wrangler (minified), checks it, and times cold starts in workerd against a no-op
 * worker (Miniflare start + first request, alternating so machine noise hits both alike). Both get a local D1
 * binding (Miniflare's), so the difference is Latchkey with its D1 store.
 *
 * @example
 * const report = await measureWorkerBundle("examples/cloudflare-workers/src/worker.ts", { runs: 7 });
 */
export async function measureWorkerBundle(entry: string, options: { runs: number }): Promise<BundleReport> {
  const bundle = await bundleWorker(entry, { minify: true });
  const problems = budgetProblems(bundle);
  const bindings = { LATCHKEY_SECRET: "b".repeat(64), LATCHKEY_BASE_URL: "https://bench.example" };
  // One warm-up each: the first workerd spawn on a machine pays for loading the binary.
  await coldStart(NOOP_WORKER, {}, "/");
  const auth: Array<{ total: number; first: number }> = [];
  const noop: Array<{ total: number; first: number }> = [];
  for (let i = 0; i < options.runs; i++) {
    noop.push(await coldStart(NOOP_WORKER, {}, "/"));
    auth.push(await coldStart(bundle.code, bindings, "/auth/get-session"));
  }
  return {
    entry,
    bundle,
    problems,
    coldStart: { auth: summarize(auth), noop: summarize(noop) },
    signUpMs: await signUpTime(bundle.code, bindings, 3),
  };
}
