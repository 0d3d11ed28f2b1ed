// Global setup of the example-cloudflare-workers project: bundles src/worker.ts once per run (esbuild, minified) and
// hands the bundle to every test file (`inject("workerBundle")`), so that the files that each start their own
// workerd instances (worker-fixture.ts) do not each bundle it again.
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { bundleWorker, type WorkerBundle } from "@latchkey/e2e/workerd";

declare module "vitest" {
  export interface ProvidedContext {
    /** src/worker.ts bundled as `wrangler deploy` would upload it (minified). */
    workerBundle: WorkerBundle;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide(
    "workerBundle",
    await bundleWorker(fileURLToPath(new URL("./worker.ts", import.meta.url)), { minify: true }),
  );
}
