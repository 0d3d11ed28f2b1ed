import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { loadavg, cpus as osCpus } from "node:os";
import { startBenchPostgres, type BenchPostgres } from "./harness/postgres.ts";
import type { Baseline } from "./harness/baseline.ts";
import { type BetterAuthVariant, hasTaskset, startServer, type ServerProcess } from "./harness/process.ts";
import type { SeedTarget } from "./scale/seed.ts";
import { CALLBACK_PATH } from "./servers/social-client.ts";
import type { ServerFeatures, StoreKind } from "./servers/shell.ts";
import { args, benchDir, CONNECTIONS, log, MEASURE_MS, REPEAT, tmpDir, WARMUP_MS } from "./run-options.ts";

// The processes of a run: the CPUs they are pinned to, the ports they listen on, the PostgreSQL cluster they share,
// and the machine they run on.

// The load generator (this process) on CPU 0 (src/run.ts pins it), every server on the remaining CPUs: autocannon
// and the server under test never compete for one core, and both servers get the same cores.
const cores = osCpus().length;
export const pinning = !args.has("no-pin") && hasTaskset() && cores >= 2;
export const serverCpus = pinning ? (cores === 2 ? "1" : `1-${cores - 1}`) : null;

export function machine(): Record<string, string> {
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
    "load average at start": loadavg()
      .map((l) => l.toFixed(1))
      .join(" "),
    load: `${CONNECTIONS} connections, ${WARMUP_MS} ms warm-up + ${MEASURE_MS} ms measured window per scenario and server (twice both for password sign-in and OTP), ${REPEAT} window${REPEAT === 1 ? "" : "s"} per scenario and server, the two libraries back to back in each repeat and the order alternating`,
  };
}

let postgres: BenchPostgres | null = null;
/** The run's PostgreSQL cluster, once started (null until a server needed it). */
export const runningPostgres = (): BenchPostgres | null => postgres;
/** One throwaway cluster for the whole run, started on first use; each server gets a fresh database on it. */
async function cluster(): Promise<BenchPostgres> {
  if (!postgres) {
    postgres = await startBenchPostgres(null);
    log(`  PostgreSQL ${postgres.version} started (${postgres.settings})`);
  }
  return postgres;
}

// BENCH_FIRST_PORT lets two checkouts profile side by side on one machine.
let nextPort = Number(process.env.BENCH_FIRST_PORT ?? 4101);
/** The next free port of the run. */
export const takePort = (): number => nextPort++;
export async function start(
  impl: "latchkey" | "better-auth" | "floor",
  store: StoreKind,
  jwtHeader: boolean,
  profileDir?: string,
  variant?: BetterAuthVariant,
  latchkey: {
    cache?: boolean;
    sendLimits?: boolean;
    secondFactor?: boolean;
    /** A port reserved beforehand (the social configuration names both servers' callbacks to its provider). */
    port?: number;
    /** The social configuration: the provider's issuer (both servers install their OpenID provider plugin). */
    oidcIssuer?: string;
  } = {},
  baseline?: Baseline,
): Promise<ServerProcess> {
  const port = latchkey.port ?? takePort();
  const name = baseline ? "baseline" : impl;
  const dbFile = store === "libsql" ? `${tmpDir}/${name}-${port}.db` : undefined;
  if (dbFile) for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${dbFile}${suffix}`, { force: true });
  const dbUrl =
    store === "postgres"
      ? await (await cluster()).createDatabase(`${baseline ? "bl" : impl === "latchkey" ? "lk" : "ba"}_${port}`)
      : undefined;
  return startServer({
    impl,
    port,
    store,
    jwtHeader,
    cpus: serverCpus,
    ...(dbFile ? { dbFile } : {}),
    ...(dbUrl ? { dbUrl } : {}),
    ...(profileDir ? { cpuProfileDir: profileDir } : {}),
    ...(variant && impl === "better-auth" ? { variant } : {}),
    ...(latchkey.cache && impl === "latchkey" ? { latchkeyCache: true } : {}),
    ...(latchkey.sendLimits && impl === "latchkey" ? { latchkeySendLimits: true } : {}),
    // Not Latchkey's alone: both servers of the second-factor configuration install the plugins.
    ...(latchkey.secondFactor ? { secondFactor: true } : {}),
    ...(latchkey.oidcIssuer ? { env: { BENCH_OIDC_ISSUER: latchkey.oidcIssuer } } : {}),
    ...(baseline ? { baseline: { benchDir: baseline.benchDir, entry: baseline.entry } } : {}),
  });
}

export const targetOf = (server: ServerProcess): SeedTarget =>
  server.spec.store === "postgres"
    ? { dialect: "postgres", url: server.spec.dbUrl as string }
    : { dialect: "sqlite", file: server.spec.dbFile as string };

export async function features(server: ServerProcess): Promise<ServerFeatures> {
  return (await (await fetch(`${server.baseUrl}/__bench/features`)).json()) as ServerFeatures;
}

/**
 * The bench's OpenID provider as its own process (its CPU is neither library's), on the load generator's CPU when
 * pinned: the servers' core stays theirs. `ports`: the servers whose callbacks its client accepts.
 */
export async function startProvider(ports: number[]): Promise<ServerProcess> {
  return startServer({
    impl: "oidc-provider",
    port: takePort(),
    store: "memory",
    jwtHeader: false,
    cpus: pinning ? "0" : null,
    env: { BENCH_OIDC_REDIRECTS: ports.map((p) => `http://127.0.0.1:${p}${CALLBACK_PATH}`).join(",") },
  });
}
