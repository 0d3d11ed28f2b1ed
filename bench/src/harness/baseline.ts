import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";

/**
 * `pnpm bench --baseline=<rev>`: another revision of Latchkey, built once in a detached git worktree of its own and
 * run as a third server next to the current checkout's. Only the library comes from that revision (its packages,
 * built from its own lockfile); the bench server that mounts it is this checkout's, copied into that worktree, so
 * both sides run the same server shell, routes and hooks and only the library differs.
 */
export interface Baseline {
  /** The rev as given on the command line. */
  rev: string;
  /** The full commit it resolves to; the cache key. */
  commit: string;
  short: string;
  /** The worktree's bench folder: the server process's cwd (its node_modules hold that revision's packages). */
  benchDir: string;
  /** The server entry inside it, relative to `benchDir`. */
  entry: string;
  /** A one-line description for the run's header. */
  describe: string;
}

const currentBench = fileURLToPath(new URL("../..", import.meta.url));
/** The copied server files: `src/` of the baseline's bench, so their imports resolve to its node_modules. */
const SERVERS_UNDER_TEST = "src/servers-under-test";
const PNPM = ["-y", "--package=pnpm@12.21.0", "pnpm"];

/** Where built baselines are kept, one folder per commit: `$LATCHKEY_BENCH_BASELINE_DIR` or the OS temp folder. */
function baselineRoot(): string {
  return process.env.LATCHKEY_BENCH_BASELINE_DIR || `${tmpdir()}/latchkey-bench-baseline`;
}

function git(args: string[], cwd = currentBench): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

function run(command: string, args: string[], cwd: string, log: (line: string) => void): void {
  log(`    $ ${command} ${args.join(" ")}   (in ${cwd})`);
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", "inherit", "inherit"], env: process.env });
  if (result.status !== 0)
    throw new Error(`baseline: \`${command} ${args.join(" ")}\` failed in ${cwd} (exit ${result.status})`);
}

/**
 * Resolves `rev`, and unless that commit is already built in the cache: adds a detached worktree of it, installs
 * its dependencies from its own lockfile (`pnpm install --frozen-lockfile`, whose `prepare` script builds every
 * package) and marks it built. Then copies this checkout's bench servers into it (every run: they are the harness).
 */
export function prepareBaseline(rev: string, log: (line: string) => void): Baseline {
  const commit = git(["rev-parse", "--verify", `${rev}^{commit}`]);
  const short = commit.slice(0, 7);
  const dir = `${baselineRoot()}/${commit}`;
  const marker = `${dir}/.latchkey-bench-built`;
  if (existsSync(marker)) log(`  baseline ${rev} (${short}): built before, in ${dir}`);
  else {
    log(`  baseline ${rev} (${short}): building once in ${dir} (cached by commit)`);
    mkdirSync(baselineRoot(), { recursive: true });
    if (existsSync(dir)) {
      // A build that stopped half-way: start again from a clean worktree.
      spawnSync("git", ["worktree", "remove", "--force", dir], { cwd: currentBench, stdio: "ignore" });
      rmSync(dir, { recursive: true, force: true });
      git(["worktree", "prune"]);
    }
    git(["worktree", "add", "--detach", dir, commit]);
    run("npx", [...PNPM, "install", "--frozen-lockfile"], dir, log);
    // `prepare` builds on install; a lockfile without it still needs the packages' dist.
    if (!existsSync(`${dir}/packages/core/dist/index.js`)) run("npx", [...PNPM, "run", "build"], dir, log);
    writeFileSync(marker, `${commit}\n`);
  }
  const benchDir = `${dir}/bench/`;
  for (const name of ["@latchkey/core", "@latchkey/hono-adapter", "@latchkey/memory-store", "hono", "tsx"])
    if (!existsSync(`${benchDir}node_modules/${name}/package.json`))
      throw new Error(`baseline ${short}: its bench package has no ${name}; the baseline needs a bench/ workspace`);
  rmSync(`${benchDir}${SERVERS_UNDER_TEST}`, { recursive: true, force: true });
  cpSync(`${currentBench}src/servers`, `${benchDir}${SERVERS_UNDER_TEST}`, { recursive: true });
  const subject = git(["log", "-1", "--format=%s", commit]).slice(0, 100);
  const version = (name: string, root: string) =>
    (JSON.parse(readFileSync(`${root}node_modules/${name}/package.json`, "utf8")) as { version: string }).version;
  const deps = ["hono", "@hono/node-server"]
    .map((name) => `${name} ${version(name, benchDir)} (current: ${version(name, currentBench)})`)
    .join(", ");
  return {
    rev,
    commit,
    short,
    benchDir,
    entry: `${SERVERS_UNDER_TEST}/latchkey.ts`,
    describe: `${short} "${subject}", built from its own lockfile in ${dir}; served by this checkout's bench server (copied into it); ${deps}`,
  };
}
