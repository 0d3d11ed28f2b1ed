// What the consumers suites share: the projects the global setup (consumers-setup.ts) packed and installed once for
// the run, and the journey every runtime drives.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, inject } from "vitest";
import { freePort, printed, run, type Packs } from "./harness/projects.ts";

const error = inject("consumersError");
if (error) throw new Error(error);

export const root = fileURLToPath(new URL("../..", import.meta.url));
export const work = inject("consumersWork");
export const plain = join(work, "plain");
export const tools = join(work, "tools");
// Runtimes from npm, installed beside the consumers (pnpm's shims in the workspace would export NODE_PATH).
export const bun = join(tools, "node_modules/.bin/bun");
export const deno = join(tools, "node_modules/.bin/deno");
export const STEPS = ["sign-up", "session", "email-otp", "api-key", "jwt"];
export const packs: Packs = inject("consumersPacks");

/** Runs a journey script (run-*.mjs) and expects its CONSUMER-OK line with every step. */
export async function expectJourney(command: string, args: string[], runtime: RegExp): Promise<void> {
  const result = await run(command, args, { cwd: plain, env: { PORT: String(await freePort()) }, timeoutMs: 120_000 });
  const line = result.stdout.split("\n").find((l) => l.startsWith("CONSUMER-OK "));
  expect(line, printed(result)).toBeDefined();
  const report = JSON.parse(line!.slice("CONSUMER-OK ".length)) as { runtime: string; steps: string[] };
  expect(report.runtime).toMatch(runtime);
  expect(report.steps).toEqual(STEPS);
  expect(result.code, printed(result)).toBe(0);
}
