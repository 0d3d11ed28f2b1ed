import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** One row: password sign-ins of the known user, quiet or under a junk flood, with or without the device cookie. */
export interface DeviceFloodRow {
  label: string;
  signIns: number;
  p50Ms: number;
  p99Ms: number;
  /** The measured sign-ins' answers by status. */
  statuses: Record<string, number>;
  /** The flood's answers by status (empty when quiet). */
  flood: Record<string, number>;
}

const serverFile = fileURLToPath(new URL("./server.ts", import.meta.url));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const count = (statuses: number[]) => {
  const out: Record<string, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
};

/**
 * Issue 42: a returning user's password sign-in with its device cookie, quiet and while `inFlight` junk sign-ins
 * (unknown emails) keep the hashing queue full, next to the same user's sign-in without the cookie under the same
 * flood. One server (the hash-cap server with its defaults: thread-pool concurrency, a queue of 32 per lane, per-IP
 * limits off so the flood is not refused before hashing, as from a botnet of many networks).
 */
export async function measureDeviceFlood(options: {
  port: number;
  signIns?: number;
  inFlight?: number;
  cpus?: string | null;
}): Promise<DeviceFloodRow[]> {
  const signIns = options.signIns ?? 40;
  const inFlight = options.inFlight ?? 200;
  const node = [process.execPath, "--import", "tsx", serverFile];
  const [command, ...args] = options.cpus ? ["taskset", "-c", options.cpus, ...node] : node;
  const child = spawn(command!, args, {
    env: { ...process.env, BENCH_PORT: String(options.port), HASH_CAP: "on", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    let device = await new Promise<string>((resolve, reject) => {
      let buffer = "";
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        const line = buffer.split("\n").find((l) => l.startsWith("{"));
        if (line) resolve((JSON.parse(line) as { device: string }).device);
      });
      child.on("exit", (code) => reject(new Error(`device-flood server exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${options.port}/auth`;
    const post = (body: object, headers: Record<string, string> = {}) =>
      fetch(`${base}/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const known = async (withDevice: boolean) => {
      const t0 = performance.now();
      const res = await post(
        { email: "reader@example.com", password: "bench password 1" },
        withDevice ? { "latchkey-device": device } : {},
      );
      const answer = (await res.json()) as { credentials?: { deviceToken?: string } };
      const ms = performance.now() - t0;
      if (withDevice && answer.credentials?.deviceToken) device = answer.credentials.deviceToken;
      return { ms, status: res.status };
    };
    const run = async (label: string, withDevice: boolean, flooding: boolean): Promise<DeviceFloodRow> => {
      let flooded = flooding;
      const floodStatuses: number[] = [];
      let n = 0;
      const junk = async () => {
        while (flooded) {
          const res = await post({ email: `junk-${n++}@example.net`, password: "a wrong password" });
          await res.arrayBuffer();
          if (flooded) floodStatuses.push(res.status);
        }
      };
      const flood = flooding ? Promise.all(Array.from({ length: inFlight }, junk)) : Promise.resolve([]);
      // Let the flood fill the queue first.
      if (flooding) await new Promise((resolve) => setTimeout(resolve, 300));
      const samples: Array<{ ms: number; status: number }> = [];
      for (let i = 0; i < signIns; i++) samples.push(await known(withDevice));
      flooded = false;
      await flood;
      const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
      return {
        label,
        signIns,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        statuses: count(samples.map((s) => s.status)),
        flood: count(floodStatuses),
      };
    };
    // Warm up (JIT, the dummy hash).
    for (let i = 0; i < 10; i++) await known(true);
    return [
      await run("device cookie, quiet", true, false),
      await run(`device cookie, ${inFlight} junk sign-ins in flight`, true, true),
      await run(`no device cookie, ${inFlight} junk sign-ins in flight`, false, true),
    ];
  } finally {
    child.kill();
  }
}

/** The rows as a markdown table. */
export function markdownDeviceFlood(rows: DeviceFloodRow[]): string {
  const statuses = (s: Record<string, number>) =>
    Object.entries(s)
      .map(([status, n]) => `${n}× ${status}`)
      .join(", ") || "—";
  return [
    "| returning user's sign-in | sign-ins | p50 ms | p99 ms | its answers | the flood's answers |",
    "|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.signIns} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${statuses(r.statuses)} | ${statuses(r.flood)} |`,
    ),
  ].join("\n");
}
