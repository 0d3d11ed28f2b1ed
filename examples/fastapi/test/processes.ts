import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

/** Debian's python3 (the pyenv shims in PATH have other site-packages). */
export const PYTHON = process.env.LATCHKEY_PYTHON ?? "/usr/bin/python3";
const MODULES = ["fastapi", "uvicorn", "jwt", "httpx", "cryptography"];
const APT = "apt-get install -y python3-fastapi python3-uvicorn python3-jwt python3-httpx python3-cryptography";

/** Throws, so the test fails (never skips), when Debian's Python packages are missing. */
export function requirePython(): void {
  const probe = spawnSync(PYTHON, ["-c", `import ${MODULES.join(", ")}`], { encoding: "utf8" });
  if (probe.status !== 0)
    throw new Error(
      `the FastAPI example needs ${PYTHON} with ${MODULES.join(", ")} (${APT}): ${probe.error?.message ?? probe.stderr.trim()}`,
    );
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A child process with everything it printed, and a stop that sends SIGTERM and resolves with the exit code. */
export interface Proc {
  child: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
  stop(): Promise<number | null>;
}

export function startProcess(command: string, args: string[], cwd: string, env: Record<string, string>): Proc {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  const collect = (d: Buffer) => {
    text += d.toString();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => text,
    exit,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exit;
    },
  };
}

/** Resolves with the first match of `pattern` in the process's output; rejects if it exits first. */
export async function waitForOutput(proc: Proc, pattern: RegExp): Promise<RegExpExecArray> {
  for (;;) {
    const match = pattern.exec(proc.output());
    if (match) return match;
    if (proc.child.exitCode !== null) throw new Error(`the process exited (${proc.child.exitCode}):\n${proc.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
