import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** One configuration's numbers: get-session latency while the sign-ins were in flight, and how the sign-ins ended. */
export interface HashCapResult {
  cap: "off" | "on";
  signIns: number;
  /** get-session requests completed while sign-ins were in flight. */
  reads: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Sign-in answers by status (401: hashed and refused; 503: BUSY, not hashed). */
  statuses: Record<string, number>;
  /** From the first sign-in sent to the last answered. */
  burstMs: number;
}

const serverFile = fileURLToPath(new URL("./server.ts", import.meta.url));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Starts a server (pinned to `cpus` with taskset when given), sends `signIns` password sign-ins for unknown
 * emails at once, and while they are in flight reads `/get-session` with `readers` requests at a time.
 */
export async function measureHashCap(options: {
  cap: "off" | "on";
  port: number;
  signIns?: number;
  readers?: number;
  cpus?: string | null;
}): Promise<HashCapResult> {
  const signIns = options.signIns ?? 200;
  const readers = options.readers ?? 4;
  const node = [process.execPath, "--import", "tsx", serverFile];
  const [command, ...args] = options.cpus ? ["taskset", "-c", options.cpus, ...node] : node;
  const child = spawn(command!, args, {
    env: { ...process.env, BENCH_PORT: String(options.port), HASH_CAP: options.cap, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const token = await new Promise<string>((resolve, reject) => {
      let buffer = "";
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        const line = buffer.split("\n").find((l) => l.startsWith("{"));
        if (line) resolve((JSON.parse(line) as { token: string }).token);
      });
      child.on("exit", (code) => reject(new Error(`hash-cap server exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${options.port}/auth`;
    const read = () => fetch(`${base}/get-session`, { headers: { authorization: `Bearer ${token}` } });
    // Warm both paths up (JIT, the dummy hash) before the burst.
    for (let i = 0; i < 50; i++) await (await read()).arrayBuffer();
    const signIn = (i: number) =>
      fetch(`${base}/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: `http://127.0.0.1:${options.port}` },
        body: JSON.stringify({ email: `nobody-${i}@example.com`, password: "a wrong password" }),
      }).then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      });
    await signIn(-1);
    const started = performance.now();
    let inFlight = true;
    const burst = Promise.all(Array.from({ length: signIns }, (_, i) => signIn(i))).then((statuses) => {
      inFlight = false;
      return statuses;
    });
    const latencies: number[] = [];
    const reader = async () => {
      while (inFlight) {
        const t0 = performance.now();
        await (await read()).arrayBuffer();
        if (inFlight) latencies.push(performance.now() - t0);
      }
    };
    await Promise.all(Array.from({ length: readers }, reader));
    const statuses = await burst;
    const burstMs = performance.now() - started;
    latencies.sort((a, b) => a - b);
    const counted: Record<string, number> = {};
    for (const s of statuses) counted[s] = (counted[s] ?? 0) + 1;
    return {
      cap: options.cap,
      signIns,
      reads: latencies.length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies[latencies.length - 1] ?? Number.NaN,
      statuses: counted,
      burstMs,
    };
  } finally {
    child.kill();
  }
}

/** The results as a markdown table. */
export function markdownHashCap(results: HashCapResult[]): string {
  const rows = results.map(
    (r) =>
      `| ${r.cap === "on" ? "capped (defaults)" : "uncapped"} | ${r.reads} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.maxMs.toFixed(1)} | ${Object.entries(
        r.statuses,
      )
        .map(([status, n]) => `${n}× ${status}`)
        .join(", ")} | ${Math.round(r.burstMs)} |`,
  );
  return [
    "| password hashing | get-session reads | p50 ms | p99 ms | max ms | sign-in answers | burst ms |",
    "|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
