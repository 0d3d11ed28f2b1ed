import { rmSync } from "node:fs";
import { cpus as osCpus, loadavg } from "node:os";
import { measure, type LoadPlan, type Measurement } from "../harness/load.ts";
import { hasTaskset, pinSelf, startServer, waitForIdle, type ServerProcess } from "../harness/process.ts";
import { startBenchPostgres, type BenchPostgres } from "../harness/postgres.ts";
import { prepareBaseline } from "../harness/baseline.ts";
import { SCENARIOS } from "../harness/scenarios.ts";
import { collectGarbage, seed } from "../harness/seed.ts";

// `pnpm --filter @latchkey/bench cached-get-session [--store=libsql,postgres] [--rounds=5] [--baseline=<rev>]
//   [--warmup=ms] [--measure=ms]`
//
// Issue 27's target "cache on: get-session (JWT header off) at most 2x the Hono floor's CPU per request", measured
// against a floor window taken next to each Latchkey window (the floor is one window per `pnpm bench` run, so its
// own noise is in every ratio there). Per round and store: the floor, this checkout's Latchkey with the lookup cache
// on, and with `--baseline=<rev>` that revision's Latchkey (cache on, the same bench server), the order rotating
// from round to round. Prints each window and the medians of CPU per request and of the per-round ratios.
const args = new Map(
  process.argv.slice(2).map((a) => {
    const [key, value] = a.replace(/^--/, "").split("=");
    return [key as string, value ?? "true"] as const;
  }),
);
const stores = (args.get("store") ?? "libsql,postgres").split(",") as Array<"libsql" | "postgres" | "memory">;
const rounds = Number(args.get("rounds") ?? 5);
const warmupMs = Number(args.get("warmup") ?? 1_500);
const measureMs = Number(args.get("measure") ?? 4_000);
const baselineRev = args.get("baseline") ?? null;
const log = (line: string) => process.stdout.write(`${line}\n`);

const cores = osCpus().length;
const pinning = hasTaskset() && cores >= 2;
const serverCpus = pinning ? (cores === 2 ? "1" : `1-${cores - 1}`) : null;
if (pinning) pinSelf("0");

const scenario = SCENARIOS.find((s) => s.id === "get-session");
if (!scenario) throw new Error("no get-session scenario");
const baseline = baselineRev ? prepareBaseline(baselineRev, log) : null;

let postgres: BenchPostgres | null = null;
let port = Number(process.env.BENCH_FIRST_PORT ?? 4301);
const tmp = new URL("../../.tmp/", import.meta.url).pathname;

async function latchkey(store: "libsql" | "postgres" | "memory", fromBaseline: boolean): Promise<ServerProcess> {
  const p = port++;
  let dbUrl: string | undefined;
  if (store === "postgres") {
    postgres ??= await startBenchPostgres(null);
    dbUrl = await postgres.createDatabase(`cgs_${p}`);
  }
  const dbFile = `${tmp}cgs-${p}.db`;
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${dbFile}${suffix}`, { force: true });
  return startServer({
    impl: "latchkey",
    port: p,
    store,
    jwtHeader: false,
    cpus: serverCpus,
    latchkeyCache: true,
    ...(store === "libsql" ? { dbFile } : {}),
    ...(dbUrl ? { dbUrl } : {}),
    ...(fromBaseline && baseline ? { baseline: { benchDir: baseline.benchDir, entry: baseline.entry } } : {}),
  });
}

const floorPlan = (): LoadPlan => ({
  steps: [{ method: "GET", path: "/hello" }],
  completesOn: 0,
  check: (_s, _st, body) => body.includes("world"),
  connections: 32,
  warmupMs,
  measureMs,
});

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const us = (m: Measurement) => (m.cpuMsPerOp * 1000).toFixed(1);

log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
const floor = await startServer({ impl: "floor", port: port++, store: "memory", jwtHeader: false, cpus: serverCpus });
const started: ServerProcess[] = [floor];
try {
  for (const store of stores) {
    const sides: Array<{ name: string; server: ServerProcess; plan: LoadPlan; cpu: number[]; ratio: number[] }> = [];
    const current = await latchkey(store, false);
    started.push(current);
    const old = baseline ? await latchkey(store, true) : null;
    if (old) started.push(old);
    for (const [name, server] of [["this checkout", current], ...(old ? [[baseline?.short, old]] : [])] as Array<
      [string, ServerProcess]
    >) {
      const s = await seed(server, 32, false);
      const plan = { ...scenario.plan("latchkey", server, s), connections: 32, warmupMs, measureMs };
      sides.push({ name, server, plan, cpu: [], ratio: [] });
    }
    const floorCpu: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const order = [null, ...sides];
      for (let r = 0; r < round % order.length; r++) order.push(order.shift() as (typeof order)[number]);
      let floorWindow: Measurement | null = null;
      const windows = new Map<(typeof sides)[number], Measurement>();
      for (const side of order) {
        const server = side ? side.server : floor;
        await collectGarbage(server);
        for (const s of [floor, ...sides.map((x) => x.server)]) await waitForIdle(s);
        const m = await measure(server, side ? side.plan : floorPlan());
        if (side) windows.set(side, m);
        else floorWindow = m;
        log(
          `  ${store} round ${round + 1} ${side ? side.name : "floor"}: ${Math.round(m.opsPerSec)} ops/s, ${us(m)} µs CPU/req, ${m.errors} errors`,
        );
      }
      if (!floorWindow) continue;
      floorCpu.push(floorWindow.cpuMsPerOp);
      for (const [side, m] of windows) {
        side.cpu.push(m.cpuMsPerOp);
        side.ratio.push(m.cpuMsPerOp / floorWindow.cpuMsPerOp);
      }
    }
    log(`${store}: floor median ${(median(floorCpu) * 1000).toFixed(1)} µs CPU/req`);
    for (const side of sides)
      log(
        `${store}: ${side.name} median ${(median(side.cpu) * 1000).toFixed(1)} µs CPU/req, ${median(side.ratio).toFixed(2)}x the floor (rounds ${side.ratio.map((r) => r.toFixed(2)).join(", ")})`,
      );
    for (const side of sides) await side.server.stop();
  }
} finally {
  for (const server of started) await server.stop();
  // Assigned inside `latchkey()`: control flow here cannot see it.
  await (postgres as BenchPostgres | null)?.stop();
  log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
}
