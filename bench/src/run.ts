import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, cpus as osCpus } from "node:os";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { measure, type LoadPlan, type Measurement } from "./harness/load.ts";
import { hasTaskset, pinSelf, startServer, waitForIdle, type ServerProcess } from "./harness/process.ts";
import { cpuRatio, markdownSizes, markdownTable, progressLine, ratio, type ScenarioResult, type SizeResult } from "./harness/report.ts";
import { SCENARIOS, type Feature, type Scenario } from "./harness/scenarios.ts";
import { collectGarbage, seed, type Seed } from "./harness/seed.ts";
import { measureWorkers } from "./harness/workers.ts";
import { hasDrizzleStore, latchkeyPlugins } from "./servers/latchkey-features.ts";
import type { ServerFeatures } from "./servers/shell.ts";
import { summarizeProfile } from "./harness/profile.ts";

// `pnpm bench [--quick] [--only=id,id] [--store=memory|libsql] [--warmup=ms] [--measure=ms] [--no-workers] [--no-pin]
//             [--profile=<scenario id> [--profile-impl=latchkey|better-auth]]`
const args = new Map(
  process.argv.slice(2).map((a) => {
    const [key, value] = a.replace(/^--/, "").split("=");
    return [key as string, value ?? "true"] as const;
  }),
);
const quick = args.has("quick");
const WARMUP_MS = Number(args.get("warmup") ?? (quick ? 1_000 : 2_000));
const MEASURE_MS = Number(args.get("measure") ?? (quick ? 2_000 : 5_000));
const CONNECTIONS = Number(args.get("connections") ?? 32);
const USERS = 32;
const only = args.get("only")?.split(",") ?? null;
const stores = (args.get("store")?.split(",") ?? ["memory", "libsql"]) as Array<"memory" | "libsql">;
const profileScenario = args.get("profile") ?? null;
const profileImpl = (args.get("profile-impl") ?? "latchkey") as "latchkey" | "better-auth";

const benchDir = fileURLToPath(new URL("..", import.meta.url));
const tmpDir = `${benchDir}.tmp`;
const startedAt = Date.now();
const log = (line: string) => process.stdout.write(`${line}\n`);

// The load generator (this process) on CPU 0, every server on the remaining CPUs: autocannon and the server
// under test never compete for one core, and both servers get the same cores.
const cores = osCpus().length;
const pinning = !args.has("no-pin") && hasTaskset() && cores >= 2;
const serverCpus = pinning ? (cores === 2 ? "1" : `1-${cores - 1}`) : null;
if (pinning) pinSelf("0");

function machine(): Record<string, string> {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1] ?? "unknown";
  const pkg = (path: string) => (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: benchDir, encoding: "utf8" }).trim();
  } catch {
    // not a git checkout
  }
  return {
    cpu: `${model} (${cores} cores)`,
    memory: `${Math.round(Number(/MemTotal:\s*(\d+)/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0) / 1024 / 1024)} GiB`,
    node: process.version,
    "latchkey commit": commit,
    "better-auth": pkg(`${benchDir}node_modules/better-auth/package.json`),
    autocannon: pkg(`${benchDir}node_modules/autocannon/package.json`),
    pinning: pinning ? `load generator on CPU 0, servers on CPU ${serverCpus}` : "none (taskset missing or 1 core)",
    "load average at start": loadavg().map((l) => l.toFixed(1)).join(" "),
    load: `${CONNECTIONS} connections, ${WARMUP_MS} ms warm-up + ${MEASURE_MS} ms measured window per scenario and server (twice both for password sign-in and OTP)`,
  };
}

let nextPort = 4101;
async function start(impl: "latchkey" | "better-auth" | "floor", store: "memory" | "libsql", jwtHeader: boolean, profileDir?: string): Promise<ServerProcess> {
  const port = nextPort++;
  const dbFile = store === "libsql" ? `${tmpDir}/${impl}-${port}.db` : undefined;
  if (dbFile) for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${dbFile}${suffix}`, { force: true });
  return startServer({ impl, port, store, jwtHeader, cpus: serverCpus, ...(dbFile ? { dbFile } : {}), ...(profileDir ? { cpuProfileDir: profileDir } : {}) });
}

async function features(server: ServerProcess): Promise<ServerFeatures> {
  return (await (await fetch(`${server.baseUrl}/__bench/features`)).json()) as ServerFeatures;
}

function plan(partial: Omit<LoadPlan, "connections" | "warmupMs" | "measureMs">, scale = 1, measureMs = MEASURE_MS): LoadPlan {
  return { ...partial, connections: CONNECTIONS, warmupMs: WARMUP_MS * scale, measureMs: measureMs * scale };
}

async function settle(target: ServerProcess, all: ServerProcess[]): Promise<void> {
  await collectGarbage(target);
  for (const server of all) await waitForIdle(server);
}

async function runFloor(): Promise<Measurement> {
  const server = await start("floor", "memory", false);
  try {
    await waitForIdle(server);
    return await measure(server, plan({ steps: [{ method: "GET", path: "/hello" }], completesOn: 0, check: (_s, _st, body) => body.includes("world") }));
  } finally {
    await server.stop();
  }
}

const missingFor = (scenario: Scenario, lk: ServerFeatures): Feature[] => scenario.needs.filter((f) => !lk[f]);

/** Both servers in one configuration: seeded alike, each scenario run on both, alternating who goes first. */
async function runConfiguration(store: "memory" | "libsql", jwtHeader: boolean, scenarios: Scenario[], floor: Measurement | null, results: ScenarioResult[], info: Record<string, string>) {
  const lk = await start("latchkey", store, jwtHeader);
  const ba = await start("better-auth", store, jwtHeader);
  const both = [lk, ba];
  try {
    const lkFeatures = await features(lk);
    const baFeatures = await features(ba);
    info[`latchkey store (${store})`] = lkFeatures.store;
    info[`better-auth store (${store})`] = baFeatures.store;
    info["latchkey password hash"] = lkFeatures.passwordHash;
    info["better-auth password hash"] = baFeatures.passwordHash;
    const seeds = new Map<ServerProcess, Seed>([
      [lk, await seed(lk, USERS, lkFeatures.apiKeys)],
      [ba, await seed(ba, USERS, true)],
    ]);
    for (const [index, scenario] of scenarios.entries()) {
      const missing = missingFor(scenario, lkFeatures);
      const result: ScenarioResult = {
        id: scenario.id,
        title: scenario.title,
        store,
        unit: scenario.unit,
        latchkey: null,
        betterAuth: null,
        target: scenario.target[store],
        floorTarget: store === "memory" && scenario.id.startsWith("get-session") ? 0.5 : null,
        skipped: missing.length ? `no ${missing.join(", ")} plugin in @latchkey/core on this checkout` : null,
      };
      log(`  ${scenario.title} [${store}]`);
      const order = index % 2 === 0 ? [lk, ba] : [ba, lk];
      for (const server of order) {
        const impl = server === lk ? "latchkey" : "better-auth";
        if (impl === "latchkey" && missing.length) {
          log(`    latchkey     skipped: ${result.skipped}`);
          continue;
        }
        await settle(server, both);
        const m = await measure(server, plan(scenario.plan(impl, server, seeds.get(server) as Seed), scenario.windowScale));
        log(progressLine(impl, m));
        if (impl === "latchkey") result.latchkey = m;
        else result.betterAuth = m;
      }
      const r = ratio(result);
      const c = cpuRatio(result);
      if (r !== null) log(`    ratio        ${r.toFixed(1)}x (CPU/op ${c === null ? "-" : c.toFixed(1)}x)${floor && result.floorTarget && result.latchkey ? `  (${((result.latchkey.opsPerSec / floor.opsPerSec) * 100).toFixed(0)}% of the Hono floor; CPU/op ${((floor.cpuMsPerOp / result.latchkey.cpuMsPerOp) * 100).toFixed(0)}%)` : ""}`);
      results.push(result);
    }
  } finally {
    await Promise.all(both.map((s) => s.stop()));
  }
}

async function profile(): Promise<void> {
  const scenario = SCENARIOS.find((s) => s.id === profileScenario);
  if (!scenario) throw new Error(`unknown scenario ${profileScenario}; one of ${SCENARIOS.map((s) => s.id).join(", ")}`);
  const store = stores[0] ?? "memory";
  const dir = `${tmpDir}/profiles/${profileImpl}-${scenario.id}-${store}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const server = await start(profileImpl, store, scenario.jwtHeader, dir);
  const f = await features(server);
  const s = await seed(server, USERS, profileImpl === "better-auth" || f.apiKeys);
  await settle(server, [server]);
  const m = await measure(server, plan(scenario.plan(profileImpl, server, s), scenario.windowScale, Math.max(MEASURE_MS, 8_000)));
  log(progressLine(profileImpl, m));
  await server.stop();
  log(summarizeProfile(dir, 25, m.windowMonotonicUs));
}

async function main(): Promise<void> {
  mkdirSync(tmpDir, { recursive: true });
  if (profileScenario) return profile();
  const info = machine();
  log("Latchkey vs Better Auth");
  for (const [k, v] of Object.entries(info)) log(`  ${k}: ${v}`);
  const selected = SCENARIOS.filter((s) => !only || only.includes(s.id));
  const results: ScenarioResult[] = [];

  let floor: Measurement | null = null;
  if (!only || only.includes("floor")) {
    log("\nHono floor (GET /hello, plain JSON)");
    floor = await runFloor();
    log(progressLine("hono", floor));
  }

  for (const store of stores) {
    log(`\nStore: ${store}`);
    if (store === "libsql" && !hasDrizzleStore()) {
      log("  skipped: @latchkey/drizzle-store is not in this workspace yet (the libSQL scenarios run once it is)");
      for (const s of selected) results.push({ id: s.id, title: s.title, store, unit: s.unit, latchkey: null, betterAuth: null, target: s.target.libsql, floorTarget: null, skipped: "@latchkey/drizzle-store not in this workspace" });
      continue;
    }
    for (const jwtHeader of [true, false]) {
      const group = selected.filter((s) => s.jwtHeader === jwtHeader);
      if (group.length) await runConfiguration(store, jwtHeader, group, floor, results, info);
    }
  }

  let sizes: SizeResult[] = [];
  if (!args.has("no-workers") && (!only || only.includes("workers"))) {
    log("\nWorkers (esbuild bundle, workerd cold start)");
    sizes = await measureWorkers(latchkeyPlugins(), quick ? 3 : 7, serverCpus, log);
  }

  const totalS = (Date.now() - startedAt) / 1000;
  info["load average at end"] = loadavg().map((l) => l.toFixed(1)).join(" ");
  const markdown = [
    `Run of ${new Date().toISOString()}, ${totalS.toFixed(0)} s in all.`,
    "",
    ...Object.entries(info).map(([k, v]) => `- ${k}: ${v}`),
    "",
    floor === null ? "" : `Hono floor (GET /hello through @hono/node-server): ${Math.round(floor.opsPerSec).toLocaleString("en-US")} req/s, ${floor.cpuMsPerOp.toFixed(3)} ms server CPU per request.`,
    "",
    markdownTable(results, floor),
    "",
    sizes.length ? markdownSizes(sizes) : "",
    ...sizes.filter((s) => s.detail).map((s) => `\n${s.name}: ${s.detail}`),
  ].join("\n");
  mkdirSync(`${benchDir}results`, { recursive: true });
  writeFileSync(`${benchDir}results/latest.md`, `${markdown}\n`);
  writeFileSync(`${benchDir}results/latest.json`, `${JSON.stringify({ info, floor, results, sizes, totalSeconds: totalS }, null, 2)}\n`);
  log(`\n${markdown}`);
  log(`\nTotal time: ${totalS.toFixed(0)} s (results in bench/results/latest.md and latest.json)`);
}

await main();
