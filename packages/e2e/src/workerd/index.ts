/**
 * @latchkey/e2e/workerd: Node-only tooling to bundle a worker like wrangler does and run it in workerd (Miniflare).
 *
 * @example
 * import { bundleWorker, startWorker } from "@latchkey/e2e/workerd";
 */
export { bundleWorker, bundleViolations, WORKERD_CONDITIONS } from "./bundle.ts";
export type { WorkerBundle } from "./bundle.ts";
export { startWorker, COMPATIBILITY_DATE } from "./miniflare.ts";
export type { D1Handle, D1StatementHandle, RunningWorker, WorkerD1 } from "./miniflare.ts";
