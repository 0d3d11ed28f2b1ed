import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import type { Baseline } from "./harness/baseline.ts";
import type { Measurement } from "./harness/load.ts";
import {
  baselineColumns,
  markdownDrivers,
  markdownMemory,
  markdownScale,
  markdownSizes,
  markdownSweeps,
  markdownTable,
  type MemoryResult,
  type ScenarioResult,
  type SizeResult,
} from "./harness/report.ts";
import { markdownDeviceFlood, type DeviceFloodRow } from "./hash-cap/device-flood.ts";
import { markdownHashCap, type HashCapResult } from "./hash-cap/measure.ts";
import { benchDir, LARGE, log, quick, REPEAT, SMALL, startedAt } from "./run-options.ts";
import { drivers } from "./run-configuration.ts";
import type { Scaled } from "./run-scale.ts";
import { runningPostgres } from "./run-servers.ts";

/** What a run has measured so far: each part adds to it, and the report is written from it. */
interface RunRecord {
  info: Record<string, string>;
  baseline: Baseline | null;
  floor: Measurement | null;
  results: ScenarioResult[];
  hashCap: HashCapResult[];
  deviceFlood: DeviceFloodRow[];
  memory: MemoryResult[];
  scaled: Scaled;
  sizes: SizeResult[];
}

/**
 * Writes bench/results/latest.md and latest.json (baseline.* in a `--baseline` run) from what the run has measured;
 * the final report is also printed.
 */
export function writeReport(
  { info, baseline, floor, results, hashCap, deviceFlood, memory, scaled, sizes }: RunRecord,
  final: boolean,
): void {
  const totalS = (Date.now() - startedAt) / 1000;
  const postgres = runningPostgres();
  if (postgres)
    info.postgresql = `${postgres.version}, one throwaway cluster for both libraries (${postgres.settings}); its processes are not pinned; their CPU (postmaster, backends, background processes, from /proc/<pid>/stat) is the "app + db" column, the "app" column is the application process alone`;
  info["load average at end"] = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  const markdown = [
    `Run of ${new Date().toISOString()}, ${totalS.toFixed(0)} s in all${final ? "" : " (so far: the run is still going or was stopped)"}.`,
    "",
    ...Object.entries(info).map(([k, v]) => `- ${k}: ${v}`),
    "",
    floor === null
      ? ""
      : `Hono floor (GET /hello through @hono/node-server): ${Math.round(floor.opsPerSec).toLocaleString("en-US")} req/s, ${floor.cpuMsPerOp.toFixed(3)} ms server CPU per request.`,
    "",
    // Both columns of these two tables are named for the two libraries: not shown in a baseline run.
    drivers.length && !baseline
      ? `Database drivers (each server's own description of its store):\n\n${markdownDrivers(drivers)}\n`
      : "",
    results.length ? markdownTable(results, floor, baseline ? baselineColumns(baseline.short) : undefined) : "",
    "",
    hashCap.length
      ? `get-session (bearer, 4 at a time) while 200 password sign-ins for unknown emails are in flight, one server on the memory store with default argon2id; uncapped = \`passwordHashing: { concurrency: 1024, maxQueue: 100000, unauthenticatedBudget: false }\`:\n\n${markdownHashCap(hashCap)}`
      : "",
    "",
    deviceFlood.length
      ? `A returning user's password sign-in (one at a time) with its device cookie, quiet and while 200 junk sign-ins for unknown emails keep the hashing queue full, and without the cookie under the same flood; one server on the memory store with default argon2id and the default hash gate, per-IP limits off (a botnet of many networks):\n\n${markdownDeviceFlood(deviceFlood)}`
      : "",
    "",
    memory.length && !baseline
      ? `Resident memory (VmRSS of the server process; idle = seeded, after a collection; peak = highest sample, every 250 ms, in any measured window):\n\n${markdownMemory(memory)}`
      : "",
    "",
    scaled.scale.length
      ? `Hot paths at ${SMALL.toLocaleString("en-US")} and ${LARGE.toLocaleString("en-US")} users (bulk seed: as many sessions and audit rows as users, a tenth as many API keys; plus the 32 users and 2 keys every run creates over HTTP, which the scenarios use):\n\n${markdownScale(scaled.scale)}`
      : "",
    "",
    scaled.sweeps.length
      ? `Sweeps at ${LARGE.toLocaleString("en-US")} users (every tenth session and API key of the bulk seed is expired):\n\n${markdownSweeps(scaled.sweeps)}`
      : "",
    ...Object.entries(scaled.plans).map(
      ([store, text]) => `\nQuery plans at ${LARGE.toLocaleString("en-US")} users, ${store}:\n\n${text}`,
    ),
    "",
    sizes.length ? markdownSizes(sizes) : "",
    ...sizes.filter((s) => s.detail).map((s) => `\n${s.name}: ${s.detail}`),
  ].join("\n");
  // A baseline run is a run of its own: bench/results/baseline.*, next to the main run's latest.*.
  const file = baseline ? "baseline" : "latest";
  mkdirSync(`${benchDir}results`, { recursive: true });
  writeFileSync(`${benchDir}results/${file}.md`, `${markdown}\n`);
  writeFileSync(
    `${benchDir}results/${file}.json`,
    `${JSON.stringify({ run: { final, repeat: REPEAT, quick, command: `pnpm bench ${process.argv.slice(2).join(" ")}`.trim(), ...(baseline ? { baseline: baseline.commit } : {}) }, info, floor, results, hashCap, deviceFlood, memory, ...scaled, sizes, totalSeconds: totalS, final }, null, 2)}\n`,
  );
  if (final) {
    log(`\n${markdown}`);
    log(`\nTotal time: ${totalS.toFixed(0)} s (results in bench/results/${file}.md and ${file}.json)`);
  }
}
