import { fileURLToPath } from "node:url";
import type { StoreKind } from "./servers/shell.ts";

// The command line of `pnpm bench` (src/run.ts) and what follows from it, read once when the run starts.
// `pnpm bench [--quick] [--repeat=N] [--baseline=<git rev>] [--plan] [--only=id,id] [--store=memory,libsql,postgres] [--warmup=ms] [--measure=ms] [--no-workers] [--no-pin]
//             [--scale | --scale-only] [--scale-sizes=1000,1000000]
//             [--profile=<scenario id> [--profile-impl=latchkey|better-auth] [--profile-cache] [--profile-send-limits]
//              [--scale-users=n]]`
export const args = new Map(
  process.argv.slice(2).map((a) => {
    const [key, value] = a.replace(/^--/, "").split("=");
    return [key as string, value ?? "true"] as const;
  }),
);
export const quick = args.has("quick");
// `--baseline=<rev>`: this checkout's Latchkey against that revision's (built once in a worktree of its own,
// harness/baseline.ts), alternating in every repeat; no Better Auth, no floor, hash cap, variants, scale or Workers.
export const baselineRev = args.get("baseline") ?? null;
if (baselineRev === "true") throw new Error("--baseline needs a git revision: --baseline=<rev>");
export const WARMUP_MS = Number(args.get("warmup") ?? (quick ? 1_000 : 2_000));
export const MEASURE_MS = Number(args.get("measure") ?? (quick ? 2_000 : 5_000));
export const CONNECTIONS = Number(args.get("connections") ?? 32);
// Windows per scenario and library, the libraries interleaved: 5 by default, 1 in the quick mode (a smoke run).
export const REPEAT = Number(args.get("repeat") ?? (quick ? 1 : 5));
if (!Number.isInteger(REPEAT) || REPEAT < 1)
  throw new Error(`--repeat must be a positive integer, not ${args.get("repeat")}`);
export const USERS = 32;
export const only = args.get("only")?.split(",") ?? null;
export const stores = (args.get("store")?.split(",") ?? ["memory", "libsql", "postgres"]) as StoreKind[];
export const scaleOnly = args.has("scale-only");
export const scale = args.has("scale") || scaleOnly;
export const [SMALL, LARGE] = (args.get("scale-sizes") ?? "1000,1000000").split(",").map(Number) as [number, number];
export const SCALE_IDS = ["get-session", "api-key-verify-unlimited", "api-key-verify-quota", "token", "otp-round-trip"];
// Tuned Better Auth configurations, each its own rows next to the defaults: on in the full run, off in the quick one.
export const variantsOn = !baselineRev && (args.has("variants") || (!quick && !args.has("no-variants")));
if (baselineRev && (args.has("scale") || args.has("scale-only") || args.has("profile")))
  throw new Error("--baseline runs the standard scenarios only (no --scale, --scale-only or --profile)");
export const profileScenario = args.get("profile") ?? null;
export const profileImpl = (args.get("profile-impl") ?? "latchkey") as "latchkey" | "better-auth";

export const benchDir = fileURLToPath(new URL("..", import.meta.url));
export const tmpDir = `${benchDir}.tmp`;
export const startedAt = Date.now();
export const log = (line: string) => process.stdout.write(`${line}\n`);
