import { mkdirSync } from "node:fs";
import type { Measurement } from "./harness/load.ts";
import { progressLine, type MemoryResult, type ScenarioResult, type SizeResult } from "./harness/report.ts";
import { prepareBaseline } from "./harness/baseline.ts";
import { describeEstimate, estimateRun } from "./harness/estimate.ts";
import { SCENARIOS, type Scenario } from "./harness/scenarios.ts";
import { pinSelf } from "./harness/process.ts";
import { measureWorkers } from "./harness/workers.ts";
import { hasDrizzleStore, latchkeyPlugins } from "./servers/latchkey-features.ts";
import type { StoreKind } from "./servers/shell.ts";
import { measureHashCap, type HashCapResult } from "./hash-cap/measure.ts";
import { measureDeviceFlood, type DeviceFloodRow } from "./hash-cap/device-flood.ts";
import {
  args,
  baselineRev,
  MEASURE_MS,
  only,
  profileScenario,
  quick,
  REPEAT,
  scale,
  scaleOnly,
  stores,
  tmpDir,
  USERS,
  variantsOn,
  WARMUP_MS,
  log,
} from "./run-options.ts";
import { runConfiguration } from "./run-configuration.ts";
import { profile } from "./run-profile.ts";
import { writeReport } from "./run-report.ts";
import { runScale, type Scaled } from "./run-scale.ts";
import { machine, pinning, runningPostgres, serverCpus, takePort } from "./run-servers.ts";
import { VARIANTS } from "./run-variants.ts";
import { isSecondFactor, isSocial, runFloor } from "./run-windows.ts";

// `pnpm bench`: Latchkey and Better Auth side by side (run-options.ts reads the command line). Per store, each
// configuration's pair of servers (run-configuration.ts), then the scale part (run-scale.ts) and the Workers bundle;
// the report (run-report.ts) is rewritten after every part.

// The load generator (this process) on CPU 0, every server on the remaining CPUs (run-servers.ts).
if (pinning) pinSelf("0");

/** The report rows of scenarios a store does not run: no measurement, the reason instead. */
function notRun(
  scenarios: Scenario[],
  store: StoreKind,
  target: keyof Scenario["target"],
  skipped: string,
): ScenarioResult[] {
  return scenarios.map((s) => ({
    id: s.id,
    title: s.title,
    store,
    unit: s.unit,
    latchkey: null,
    betterAuth: null,
    target: s.target[target],
    floorTarget: null,
    skipped,
  }));
}

async function main(): Promise<void> {
  mkdirSync(tmpDir, { recursive: true });
  if (profileScenario) return profile();
  const info = machine();
  const baseline = baselineRev ? prepareBaseline(baselineRev, log) : null;
  if (baseline) {
    info.baseline = baseline.describe;
    delete info["better-auth"]; // not in this run
    info.load = info.load?.replace("the two libraries", `this checkout and ${baseline.short}`) ?? "";
  }
  log(baseline ? `Latchkey: this checkout vs ${baseline.short}` : "Latchkey vs Better Auth");
  for (const [k, v] of Object.entries(info)) log(`  ${k}: ${v}`);
  const selected = SCENARIOS.filter((s) => !only || only.includes(s.id));
  const standardParts = !scaleOnly && !baseline;
  // The configurations (pairs of servers) each store runs, in order: the estimate and `--plan` read the same list.
  const configurations = [
    ...[true, false].map((jwtHeader) => ({
      part: "standard scenarios",
      label: `defaults, JWT header ${jwtHeader ? "on" : "off"}`,
      scenarios: selected.filter((s) => s.jwtHeader === jwtHeader && !s.pool),
    })),
    {
      part: "second-factor scenarios",
      label: "defaults plus the two-factor and magic-link plugins, JWT header off",
      scenarios: selected.filter(isSecondFactor),
    },
    {
      part: "social sign-in scenarios",
      label: "defaults plus the social sign-in plugin and a local OpenID provider, JWT header off",
      scenarios: selected.filter(isSocial),
    },
    ...(variantsOn ? VARIANTS : []).flatMap((v) =>
      [true, false].map((jwtHeader) => ({
        part: `variant ${v.latchkeyCache ? "Latchkey cache on" : v.latchkeySendLimits ? "Latchkey send limits on" : v.id}`,
        label: `${v.label}, JWT header ${jwtHeader ? "on" : "off"}`,
        scenarios: selected.filter((s) => s.jwtHeader === jwtHeader && v.ids.includes(s.id)),
      })),
    ),
  ].filter((c) => c.scenarios.length > 0);
  const estimate = estimateRun({
    stores: scaleOnly ? 0 : stores.length,
    repeat: REPEAT,
    warmupMs: WARMUP_MS,
    measureMs: MEASURE_MS,
    configurations: configurations.map((c) => ({ part: c.part, scales: c.scenarios.map((s) => s.windowScale ?? 1) })),
    floor: standardParts && (!only || only.includes("floor")),
    hashCap: standardParts && (!only || only.includes("hash-cap")),
    workers: standardParts && !args.has("no-workers") && (!only || only.includes("workers")),
  });
  info["estimated duration"] = describeEstimate(estimate);
  log(`  estimated duration: ${info["estimated duration"]}${scale ? "; the scale part comes on top" : ""}`);
  // `--plan`: what the run would measure, per store, and nothing else.
  if (args.has("plan")) {
    for (const store of scaleOnly ? [] : stores)
      for (const c of configurations)
        log(
          `  ${store}: ${c.label}: ${c.scenarios.map((s) => `${s.id}${s.windowScale ? ` (x${s.windowScale} windows)` : ""}`).join(", ")}`,
        );
    return;
  }
  const results: ScenarioResult[] = [];
  const memory: MemoryResult[] = [];

  let floor: Measurement | null = null;
  if (!scaleOnly && !baseline && (!only || only.includes("floor"))) {
    log("\nHono floor (GET /hello, plain JSON)");
    floor = await runFloor();
    log(progressLine("hono", floor));
  }

  // Issue 33: get-session while 200 password sign-ins are in flight, without and with the hash cap.
  const hashCap: HashCapResult[] = [];
  if (!scaleOnly && !baseline && (!only || only.includes("hash-cap"))) {
    log("\nget-session while 200 password sign-ins are in flight (memory store, default argon2id)");
    for (const cap of ["off", "on"] as const) {
      const result = await measureHashCap({ cap, port: takePort(), cpus: serverCpus });
      hashCap.push(result);
      log(
        `  ${cap === "on" ? "capped  " : "uncapped"} p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms over ${result.reads} reads; sign-ins ${JSON.stringify(result.statuses)}`,
      );
    }
  }

  // Issue 42: a returning user's sign-in with its device cookie under a junk flood, next to a quiet one.
  let deviceFlood: DeviceFloodRow[] = [];
  if (!scaleOnly && !baseline && (!only || only.includes("device-flood"))) {
    log("\ndevice-cookie sign-in under a junk flood (memory store, default argon2id)");
    deviceFlood = await measureDeviceFlood({ port: takePort(), cpus: serverCpus });
    for (const row of deviceFlood)
      log(
        `  ${row.label}: p50 ${row.p50Ms.toFixed(1)} ms, p99 ${row.p99Ms.toFixed(1)} ms; ${JSON.stringify(row.statuses)}`,
      );
  }

  const scaled: Scaled = { scale: [], sweeps: [], plans: {} };
  let sizes: SizeResult[] = [];
  // The report is rewritten after every part, so a run stopped part-way still leaves what it measured.
  const report = (final: boolean) =>
    writeReport({ info, baseline, floor, results, hashCap, deviceFlood, memory, scaled, sizes }, final);

  for (const store of scaleOnly ? [] : stores) {
    log(`\nStore: ${store}`);
    if (store === "libsql" && !hasDrizzleStore()) {
      log("  skipped: @latchkey/drizzle-store is not in this workspace yet (the libSQL scenarios run once it is)");
      results.push(...notRun(selected, store, "libsql", "@latchkey/drizzle-store not in this workspace"));
      continue;
    }
    for (const jwtHeader of [true, false]) {
      const group = selected.filter((s) => s.jwtHeader === jwtHeader && !s.pool);
      if (group.length)
        await runConfiguration(store, jwtHeader, group, floor, results, info, memory, {
          label: `${USERS} users, JWT header ${jwtHeader ? "on" : "off"}`,
          ...(baseline ? { baseline } : {}),
        });
    }
    // The scenarios that spend a single-use credential per request: their own pair of servers, with the two-factor
    // and magic-link plugins installed on both (the other scenarios run without them, as before).
    const pooled = selected.filter(isSecondFactor);
    if (pooled.length && store === "memory" && !baseline) {
      // Better Auth's memory adapter snapshots every table for each transaction (and both verifies consume their rows
      // in one), so its cost per request grows with the pool of users seeded for the run: no ratio worth printing.
      log(
        "  second-factor scenarios skipped on memory: Better Auth's memory adapter copies every table per transaction",
      );
      results.push(
        ...notRun(
          pooled,
          store,
          "memory",
          "not run on memory: Better Auth's memory adapter copies every table per transaction, so its cost grows with the seeded pool",
        ),
      );
    } else if (pooled.length)
      await runConfiguration(store, false, pooled, floor, results, info, memory, {
        label: `${USERS} users, JWT header off, two-factor and magic-link plugins on`,
        secondFactor: true,
        ...(baseline ? { baseline } : {}),
      });
    // The social sign-in's callback: its own pair of servers, each with its OpenID provider plugin pointed at the
    // bench's provider, which runs as a third process (harness/social.ts).
    const social = selected.filter(isSocial);
    if (social.length && store === "memory" && !baseline) {
      // Better Auth's memory adapter finds a row by scanning its table (and copies the database for a transaction),
      // and its verification table holds the whole pool of started flows: its cost grows with the pool.
      log("  social sign-in scenarios skipped on memory: Better Auth's memory adapter scans the pool's state rows");
      results.push(
        ...notRun(
          social,
          store,
          "memory",
          "not run on memory: Better Auth's memory adapter scans its tables, and its verification table holds the pool of started flows, so its cost grows with the pool",
        ),
      );
    } else if (social.length)
      await runConfiguration(store, false, social, floor, results, info, memory, {
        label: `${USERS} users, JWT header off, social sign-in plugin on (local OpenID provider)`,
        social: true,
        ...(baseline ? { baseline } : {}),
      });
    for (const v of variantsOn ? VARIANTS : []) {
      for (const jwtHeader of [true, false]) {
        const group = selected.filter((s) => s.jwtHeader === jwtHeader && v.ids.includes(s.id));
        if (group.length)
          await runConfiguration(store, jwtHeader, group, null, results, info, memory, {
            label: `${USERS} users, JWT header ${jwtHeader ? "on" : "off"}, ${v.label}`,
            variant: v,
          });
      }
    }
    report(false);
  }

  if (scale) await runScale(info, memory, scaled, () => report(false));

  if (!scaleOnly && !baseline && !args.has("no-workers") && (!only || only.includes("workers"))) {
    log("\nWorkers (esbuild bundle, workerd cold start)");
    sizes = await measureWorkers(latchkeyPlugins(), quick ? 3 : 7, serverCpus, log);
  }
  report(true);
}

try {
  await main();
} finally {
  await runningPostgres()?.stop();
}
