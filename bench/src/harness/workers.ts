import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { zodEnglishOnly } from "@latchkey/hono-adapter/esbuild";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { basename } from "node:path";
import type { LatchkeyPlugins } from "../servers/latchkey-features.ts";
import type { SizeResult } from "./report.ts";

const benchDir = fileURLToPath(new URL("../..", import.meta.url));
const outDir = `${benchDir}.tmp/workers`;
const SECRET = "bench-secret-0123456789abcdef0123456789abcdef";

/** Entry sources, written at run time so the Latchkey entry imports exactly the plugins this checkout has. */
function latchkeyEntry(plugins: LatchkeyPlugins): string {
  const names = (["emailOtp", "apiKeys", "jwt"] as const).filter((name) => plugins[name] !== null);
  const imports = names.length ? `import { ${names.join(", ")} } from "@latchkey/core";\n` : "";
  return `${imports}import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
const auth = createAuth({
  secret: "${SECRET}",
  database: memoryStore(),
  baseUrl: "https://bench.example",
  email: { sender: { send: async () => undefined } },
  rateLimit: { enabled: false },
  plugins: [${names.map((n) => `${n}()`).join(", ")}],
});
export default { fetch: (request, env, ctx) => auth.handler(request, env, ctx) };
`;
}

const betterAuthEntry = `import { betterAuth } from "better-auth";
import { emailOTP, jwt } from "better-auth/plugins";
import { apiKey } from "@better-auth/api-key";
import { memoryAdapter } from "@better-auth/memory-adapter";
const auth = betterAuth({
  secret: "${SECRET}",
  baseURL: "https://bench.example",
  basePath: "/auth",
  database: memoryAdapter({ user: [], session: [], account: [], verification: [], apikey: [], jwks: [] }),
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  plugins: [emailOTP({ async sendVerificationOTP() {} }), apiKey({ rateLimit: { enabled: false } }), jwt()],
});
export default { fetch: (request) => auth.handler(request) };
`;

const noopEntry = `export default { fetch: () => new Response("ok") };\n`;

/** esbuild as a Workers bundler would run it: ESM, minified, workerd/worker/browser conditions, node:* external. */
async function bundle(name: string, source: string): Promise<{ path: string; minified: number; gzip: number }> {
  mkdirSync(outDir, { recursive: true });
  const entry = `${benchDir}src/.worker-${name}.js`;
  writeFileSync(entry, source);
  try {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      conditions: ["workerd", "worker", "browser"],
      mainFields: ["browser", "module", "main"],
      external: ["node:*", "cloudflare:*"],
      define: { "process.env.NODE_ENV": '"production"' },
      // The same English-only zod build for both libraries (both bundle zod 4): see docs/runtimes.md.
      plugins: [zodEnglishOnly()],
      write: false,
      logLevel: "silent",
    });
    const code = result.outputFiles[0]?.text ?? "";
    const path = `${outDir}/${name}.js`;
    writeFileSync(path, code);
    return { path, minified: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length };
  } finally {
    rmSync(entry, { force: true });
  }
}

/** The workerd binary Miniflare runs (its `workerd` dependency), so both use the same runtime build. */
function workerdBinary(): string {
  const require = createRequire(import.meta.url);
  const fromMiniflare = createRequire(require.resolve("miniflare"));
  const exported = fromMiniflare("workerd") as string | { default: string };
  return typeof exported === "string" ? exported : exported.default;
}

const COLD_START_PORT = 4150;

/**
 * From spawning `workerd serve` to the first response of GET /auth/get-session (anonymous), in ms. workerd is
 * run directly with a one-worker config rather than through Miniflare, whose own proxy adds noisy tens of ms.
 */
async function coldStart(scriptPath: string, cpus: string | null): Promise<number> {
  const config = `${scriptPath}.capnp`;
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .w)],
  sockets = [(name = "http", address = "127.0.0.1:${COLD_START_PORT}", http = (), service = "main")],
);
const w :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "${basename(scriptPath)}")],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["nodejs_compat"],
);
`,
  );
  const args = ["serve", config];
  const started = performance.now();
  const child = cpus
    ? spawn("taskset", ["-c", cpus, workerdBinary(), ...args], { stdio: ["ignore", "ignore", "pipe"] })
    : spawn(workerdBinary(), args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    for (;;) {
      try {
        const response = await fetch(`http://127.0.0.1:${COLD_START_PORT}/auth/get-session`);
        await response.text();
        if (response.status >= 500) throw new Error(`worker answered ${response.status}: ${stderr}`);
        return performance.now() - started;
      } catch (error) {
        if (error instanceof Error && error.message.startsWith("worker answered")) throw error;
        if (child.exitCode !== null) throw new Error(`workerd exited: ${stderr.split("\n")[0]}`);
        if (performance.now() - started > 20_000) throw new Error("workerd did not answer in 20 s");
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/**
 * Bundle sizes (gzip -9 of the minified bundle) and workerd cold start. Cold start is measured `rounds` times,
 * the three workers interleaved; each figure is the median minus the no-op worker's median.
 */
export async function measureWorkers(
  plugins: LatchkeyPlugins,
  rounds: number,
  cpus: string | null,
  log: (line: string) => void,
): Promise<SizeResult[]> {
  const lk = await bundle("latchkey", latchkeyEntry(plugins));
  const ba = await bundle("better-auth", betterAuthEntry);
  const noop = await bundle("noop", noopEntry);
  const missing = (["jwt", "apiKeys", "emailOtp"] as const).filter((n) => plugins[n] === null);
  const note = missing.length ? `Latchkey bundle lacks ${missing.join(", ")} (not on this checkout)` : undefined;
  log(
    `  bundles: Latchkey ${(lk.gzip / 1024).toFixed(1)} KiB gzip (${(lk.minified / 1024).toFixed(0)} KiB min), Better Auth ${(ba.gzip / 1024).toFixed(1)} KiB gzip (${(ba.minified / 1024).toFixed(0)} KiB min)`,
  );
  const sizes: SizeResult[] = [
    {
      name: "worker bundle, gzip -9 (esbuild minified)",
      latchkey: lk.gzip / 1024,
      betterAuth: ba.gzip / 1024,
      maxRatio: 0.5,
      unit: "KiB",
      skipped: null,
      ...(note ? { detail: note } : {}),
    },
  ];
  const times: Record<"noop" | "latchkey" | "betterAuth", number[]> = { noop: [], latchkey: [], betterAuth: [] };
  try {
    await coldStart(noop.path, cpus); // first workerd launch pays for the binary's page cache; not counted
    for (let round = 0; round < rounds; round += 1) {
      times.noop.push(await coldStart(noop.path, cpus));
      times.latchkey.push(await coldStart(lk.path, cpus));
      times.betterAuth.push(await coldStart(ba.path, cpus));
    }
  } catch (error) {
    sizes.push({
      name: "workerd cold start above a no-op worker",
      latchkey: null,
      betterAuth: null,
      maxRatio: 0.5,
      unit: "ms",
      skipped: `workerd failed: ${(error as Error).message.split("\n")[0]}`,
    });
    return sizes;
  }
  const base = median(times.noop);
  const lkOver = median(times.latchkey) - base;
  const baOver = median(times.betterAuth) - base;
  log(
    `  cold start (median of ${rounds}): no-op ${base.toFixed(0)} ms, Latchkey +${lkOver.toFixed(0)} ms, Better Auth +${baOver.toFixed(0)} ms`,
  );
  sizes.push({
    name: `workerd cold start above a no-op worker (median of ${rounds}; no-op ${base.toFixed(0)} ms)`,
    latchkey: Math.max(0, lkOver),
    betterAuth: Math.max(0, baOver),
    maxRatio: 0.5,
    unit: "ms",
    skipped: null,
  });
  return sizes;
}
