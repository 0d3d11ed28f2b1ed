import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type Impl = "latchkey" | "better-auth" | "floor";
/** What a bench process runs: a server under test, or the OpenID provider of the social scenarios. */
type ProcessKind = Impl | "oidc-provider";
export type BetterAuthVariant = "joins" | "cookie-cache" | "argon2id";

export interface ServerSpec {
  impl: ProcessKind;
  port: number;
  store: "memory" | "libsql" | "postgres";
  jwtHeader: boolean;
  dbFile?: string;
  dbUrl?: string;
  /** Write a V8 CPU profile of the whole server run into this folder. */
  cpuProfileDir?: string;
  /** A tuned Better Auth configuration (bench/src/servers/better-auth.ts): joins, cookie-cache or argon2id. */
  variant?: BetterAuthVariant;
  /** Latchkey with `createAuth({ cache: {} })` (the lookup cache; docs/cache.md). */
  latchkeyCache?: boolean;
  /**
   * Latchkey with its email send limits on (`email.resendCooldown`, `email.perRecipient`, `email.recipientCap`: its defaults). Off unless
   * set, as Better Auth's rate limiter (its own limit on OTP sends) is off in every configuration.
   */
  latchkeySendLimits?: boolean;
  /** Both libraries with their two-factor and magic-link plugins installed (the second-factor configuration). */
  secondFactor?: boolean;
  /** More environment for the process (the social configuration's provider issuer and callbacks). */
  env?: Record<string, string>;
  /** Pin the server to these CPUs (taskset list such as "1"). */
  cpus?: string | null;
  /**
   * Another revision's Latchkey (`--baseline`): the server runs from that revision's bench folder (`benchDir`, whose
   * node_modules hold its packages) with `entry`, this checkout's server copied there (harness/baseline.ts).
   */
  baseline?: { benchDir: string; entry: string };
}

export interface ServerProcess {
  spec: ServerSpec;
  pid: number;
  baseUrl: string;
  /** User + system CPU time of the whole process (all threads), in ms. */
  cpuMs(): number;
  /** Resident set size of the process now, in MiB (VmRSS). */
  rssMb(): number;
  stop(): Promise<void>;
}

const benchDir = fileURLToPath(new URL("../..", import.meta.url));
const entries: Record<ProcessKind, string> = {
  latchkey: "src/servers/latchkey.ts",
  "better-auth": "src/servers/better-auth.ts",
  floor: "src/servers/floor.ts",
  "oidc-provider": "src/servers/oidc-provider-server.ts",
};

let clockTicks = 0;
function ticksPerSecond(): number {
  if (clockTicks === 0) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime of a process from /proc/<pid>/stat, in ms (all threads, so argon2/scrypt worker threads count). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may contain spaces) start at field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / ticksPerSecond();
}

const statFields = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
};

/**
 * CPU time of a process and its direct children (a PostgreSQL postmaster: every backend and background process),
 * in ms. The root's cutime/cstime hold the children that exited and were reaped, so a connection that closes
 * inside a window still counts.
 */
export function processTreeCpuMs(rootPid: number): number {
  const root = statFields(rootPid);
  let ticks = Number(root[11]) + Number(root[12]) + Number(root[13]) + Number(root[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === rootPid) continue;
    try {
      const fields = statFields(Number(entry));
      if (Number(fields[1]) === rootPid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process exited between the listing and the read
    }
  }
  return (ticks * 1000) / ticksPerSecond();
}

/** VmRSS of a process from /proc/<pid>/status, in MiB. */
function processRssMb(pid: number): number {
  const kb = Number(/VmRSS:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
  return kb / 1024;
}

export function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Pins the calling process (the load generator) to a CPU list, when taskset exists. */
export function pinSelf(cpus: string): void {
  execFileSync("taskset", ["-a", "-p", "-c", cpus, String(process.pid)], { stdio: "ignore" });
}

/** Starts one bench server as its own Node process on loopback and waits for its `READY` line. */
export async function startServer(spec: ServerSpec): Promise<ServerProcess> {
  const nodeArgs = ["--expose-gc", "--import", "tsx"];
  if (spec.cpuProfileDir) nodeArgs.push("--cpu-prof", "--cpu-prof-dir", spec.cpuProfileDir);
  nodeArgs.push(spec.baseline ? spec.baseline.entry : entries[spec.impl]);
  const [command, args] = spec.cpus
    ? ["taskset", ["-c", spec.cpus, process.execPath, ...nodeArgs]]
    : [process.execPath, nodeArgs];
  const child: ChildProcess = spawn(command as string, args as string[], {
    cwd: spec.baseline ? spec.baseline.benchDir : benchDir,
    env: {
      ...process.env,
      NODE_ENV: "production",
      BENCH_PORT: String(spec.port),
      BENCH_STORE: spec.store,
      BENCH_JWT_HEADER: spec.jwtHeader ? "1" : "0",
      BENCH_DB_FILE: spec.dbFile ?? "",
      BENCH_DB_URL: spec.dbUrl ?? "",
      BENCH_BA_VARIANT: spec.variant ?? "",
      BENCH_LK_CACHE: spec.latchkeyCache ? "1" : "",
      BENCH_LK_SEND_LIMITS: spec.latchkeySendLimits ? "1" : "",
      BENCH_SECOND_FACTOR: spec.secondFactor ? "1" : "",
      ...spec.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 20_000) stderr = stderr.slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${spec.impl} did not start in 120 s:\n${stderr}`)), 120_000);
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("READY")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${spec.impl} exited with ${code} before it was ready:\n${stderr}`));
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${spec.impl}: no pid`);
  return {
    spec,
    pid,
    baseUrl: `http://127.0.0.1:${spec.port}`,
    cpuMs: () => processCpuMs(pid),
    rssMb: () => processRssMb(pid),
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      const timeout = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}

/** Waits until the server has been idle (under 2% of a core) for 300 ms, at most `maxMs`. */
export async function waitForIdle(server: ServerProcess, maxMs = 5_000): Promise<void> {
  const started = Date.now();
  let last = server.cpuMs();
  while (Date.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = server.cpuMs();
    if (now - last <= 6) return;
    last = now;
  }
}
