import { readdirSync, readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame lives: the npm package or workspace package, else the file name. */
function origin(url: string): string {
  if (!url) return "(native)";
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pnpm) return pnpm[1] as string;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1] as string;
  const ws = /\/packages\/([^/]+)\//.exec(url);
  if (ws) return `@latchkey/${ws[1]}`;
  if (url.startsWith("node:")) return "node";
  return url.split("/").slice(-2).join("/");
}

/**
 * Self time per function and per package from the `.cpuprofile` files `node --cpu-prof` wrote into `dir`,
 * counting only samples inside `window` (µs on the monotonic clock V8 and `process.hrtime` share), so start-up
 * and seeding do not blur the picture. This is the summary docs/benchmarks.md quotes where a target is missed.
 */
export function summarizeProfile(dir: string, top: number, window: [number, number]): string {
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(`${dir}/${file}`, "utf8")) as CpuProfile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      const delta = profile.timeDeltas[i] ?? 0;
      at += delta;
      if (at < window[0] || at > window[1]) return;
      const dt = delta / 1000;
      const node = nodes.get(id);
      if (!node) return;
      const { functionName, url, lineNumber } = node.callFrame;
      const name = functionName || "(anonymous)";
      if (name === "(idle)" || name === "(program)") return;
      total += dt;
      const where = url ? `${origin(url)} ${url.split("/").pop()}:${lineNumber + 1}` : "";
      const key = `${name}  ${where}`.trim();
      byFunction.set(key, (byFunction.get(key) ?? 0) + dt);
      const pkg = name === "(garbage collector)" ? "(gc)" : origin(url);
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + dt);
    });
  }
  const pct = (v: number) => `${((v / total) * 100).toFixed(1).padStart(5)}%`;
  const lines = [
    `CPU profile of the measured window (${total.toFixed(0)} ms of non-idle samples; V8 samples the main thread by wall clock, so blocking syscalls such as fsync count): top functions by self time`,
  ];
  for (const [key, v] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(v)}  ${key}`);
  lines.push("By package (self time):");
  for (const [key, v] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 12)) lines.push(`  ${pct(v)}  ${key}`);
  return lines.join("\n");
}
