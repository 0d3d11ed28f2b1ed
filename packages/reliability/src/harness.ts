import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";

const INSTANCE = fileURLToPath(new URL("./instance.mjs", import.meta.url));

/** One Latchkey server process. */
export interface Instance {
  name: string;
  port: number;
  child: ChildProcess;
  /** Everything the process wrote to stderr (crash traces land here). */
  stderr(): string;
  /** Whether the process is still running. */
  alive(): boolean;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startInstance(name: string, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, [INSTANCE], {
    env: { ...process.env, ...env, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 30 s: ${err}`)), 30_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /READY (\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exit.then(({ code, signal }) =>
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready: ${err}`)),
    );
  });
  return {
    name,
    port,
    child,
    exit,
    stderr: () => err,
    alive: () => child.exitCode === null && child.signalCode === null,
  };
}

export async function stopInstance(instance: Instance): Promise<void> {
  if (!instance.alive()) return;
  instance.child.kill("SIGTERM");
  const timer = setTimeout(() => instance.child.kill("SIGKILL"), 5000);
  await instance.exit;
  clearTimeout(timer);
}

/** The answer of one request: status (0 when no answer arrived), body text, how long it took. */
export interface Answer {
  status: number;
  text: string;
  ms: number;
  at: number;
  headers: Headers | null;
}

let ipSeq = 0;
/**
 * A fresh client address per call, each in an IPv4 /24 of its own, so neither the per-address nor the per-network
 * limits interfere with load (tests that want one pass it).
 */
export const freshIp = () => {
  const n = ipSeq++;
  return `10.${(n >> 8) & 255}.${n & 255}.${((n >> 16) & 255) + 1}`;
};

export async function call(
  instance: Instance,
  method: string,
  path: string,
  init: { body?: unknown; rawBody?: string; headers?: Record<string, string>; ip?: string; timeoutMs?: number } = {},
): Promise<Answer> {
  const started = Date.now();
  const headers: Record<string, string> = { "x-test-ip": init.ip ?? freshIp(), ...init.headers };
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers["content-type"] ??= "application/json";
  }
  try {
    const res = await fetch(`http://127.0.0.1:${instance.port}${path}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(init.timeoutMs ?? 15_000),
    });
    return { status: res.status, text: await res.text(), ms: Date.now() - started, at: started, headers: res.headers };
  } catch {
    return { status: 0, text: "", ms: Date.now() - started, at: started, headers: null };
  }
}

export const json = <T>(answer: Answer): T => JSON.parse(answer.text) as T;

/** Direct database access for reconciliation. */
export async function query<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `worker` on `concurrency` lanes until `durationMs` has passed (or `done()` says so, when given). */
export async function loadFor(
  durationMs: number,
  concurrency: number,
  worker: (lane: number) => Promise<void>,
  done?: () => boolean,
): Promise<void> {
  const until = Date.now() + durationMs;
  const finished = done ?? (() => Date.now() >= until);
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (!finished()) await worker(lane);
    }),
  );
}

/** A small seeded generator (mulberry32): a failing fuzz run can be replayed with the seed it prints. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// What must never reach a client: stack frames, SQL, driver names.
export const LEAK =
  /\bat [\w$.<>]+ \(|\.(?:ts|js|mjs):\d+|\bselect\b.+\bfrom\b|\binsert into\b|\bupdate\b.+\bset\b|\bdelete from\b|postgres|drizzle|node_modules|ECONN|Error:/i;
