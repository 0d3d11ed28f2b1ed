import { spawn } from "node:child_process";
import { REPORT_PREFIX, type RuntimeReport } from "./run-runtime.ts";

export interface ChildRun {
  code: number | null;
  output: string;
  report: RuntimeReport | null;
}

/**
 * Runs a runner process to completion and reads its report line (Node only: used by the Vitest runtime tests).
 *
 * @example
 * const run = await runChild("node_modules/.bin/bun", ["run", "src/runners/bun.ts"], packageDir);
 */
export function runChild(command: string, args: string[], cwd: string, timeoutMs = 110_000): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => void (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => void (output += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} timed out:\n${output}`));
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const line = output.split("\n").find((l) => l.startsWith(REPORT_PREFIX));
      resolve({ code, output, report: line ? (JSON.parse(line.slice(REPORT_PREFIX.length)) as RuntimeReport) : null });
    });
  });
}

/** The child's output without the (long) JSON report line, for failure messages. */
export function readableOutput(run: ChildRun): string {
  return run.output
    .split("\n")
    .filter((l) => !l.startsWith(REPORT_PREFIX))
    .join("\n");
}

export interface RunningServer {
  /** The URL the server printed, e.g. `http://localhost:41234`. */
  url: string;
  output(): string;
  stop(): void;
}

/**
 * Starts a server process and resolves once it prints a line matching `ready` (whose first group is the URL).
 *
 * @example
 * const server = await startServer(bunBin, ["run", "src/server.ts"], { cwd, env: { PORT: "0" }, ready: /listening on (http:\S+)/ });
 * try { await fetch(`${server.url}/auth/get-session`); } finally { server.stop(); }
 */
export function startServer(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; ready: RegExp; timeoutMs?: number },
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    // A process group of its own: package-manager shims (node_modules/.bin/deno) run the runtime as a child, and
    // stopping only the shim would leave the server running.
    const child = spawn(command, args, {
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", ...options.env },
      detached: true,
    });
    const stopGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        child.kill(signal);
      }
    };
    let output = "";
    let started = false;
    const timer = setTimeout(() => {
      stopGroup("SIGKILL");
      reject(new Error(`${command} did not start in time:\n${output}`));
    }, options.timeoutMs ?? 20_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      const found = options.ready.exec(output);
      if (found && !started) {
        started = true;
        clearTimeout(timer);
        resolve({ url: found[1]!, output: () => output, stop: () => stopGroup("SIGTERM") });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`${command} exited with ${code} before it was ready:\n${output}`));
    });
  });
}
