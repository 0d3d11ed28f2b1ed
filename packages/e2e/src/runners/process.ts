/**
 * @latchkey/e2e/process: Node-only helpers to run a runtime's binary as a child process from a Vitest test.
 *
 * @example
 * import { startServer, runChild } from "@latchkey/e2e/process";
 */
export { runChild, readableOutput, startServer } from "./spawn.ts";
export type { ChildRun, RunningServer } from "./spawn.ts";
