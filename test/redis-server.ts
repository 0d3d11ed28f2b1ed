import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throwaway redis-server on a free loopback port (Debian's `redis-server`; Valkey's works the same). */
export interface TestRedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, waits for exit). Data is not kept. */
  halt(): Promise<void>;
  /** Starts it again on the same port. */
  resume(): Promise<void>;
  /** Freezes the running server (SIGSTOP): connections stay open, nothing is answered. */
  freeze(): void;
  /** Lets a frozen server run again (SIGCONT). */
  thaw(): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
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

/** Waits for the server's own "Ready to accept connections" line: proof that it, not another process, bound the port. */
async function waitForReady(child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (/Ready to accept connections/.test(output())) return;
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server exited (${child.exitCode ?? child.signalCode}): ${output().trim().slice(-500)}`);
    if (Date.now() > deadline) throw new Error(`redis-server was not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const PORT_ATTEMPTS = 5;

/**
 * Starts `redis-server` (REDIS_SERVER_BIN or the one on PATH). Throws when it cannot: the calling test fails,
 * it does not skip (install it with `apt-get install redis-server`).
 */
export async function startTestRedis(): Promise<TestRedisServer> {
  const bin = process.env.REDIS_SERVER_BIN ?? "redis-server";
  const dir = await mkdtemp(join(tmpdir(), "latchkey-redis-"));
  // redis-server cannot bind port 0 (`--port 0` turns TCP off): it gets a port that was free a moment ago and
  // reports, in its own log, whether it bound it; when another process took it meanwhile, another port is tried.
  let port = 0;
  let child: ChildProcess | null = null;
  const start = async () => {
    const proc = spawn(
      bin,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
        "--protected-mode",
        "yes",
        "--logfile",
        "",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    proc.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    proc.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    await new Promise<void>((resolve, reject) => {
      proc.once("error", (e) => reject(new Error(`cannot start ${bin}: ${e.message} (apt-get install redis-server)`)));
      proc.once("spawn", () => resolve());
    });
    child = proc;
    try {
      await waitForReady(proc, () => output, 10_000);
    } catch (error) {
      proc.kill("SIGKILL");
      child = null;
      throw error;
    }
  };
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (error) {
      const taken = /Address already in use|Could not create server TCP listening socket/.test(
        (error as Error).message,
      );
      if (!taken || attempt === PORT_ATTEMPTS) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  const halt = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    halt,
    resume: start,
    freeze: () => void (child as ChildProcess | null)?.kill("SIGSTOP"),
    thaw: () => void (child as ChildProcess | null)?.kill("SIGCONT"),
    async stop() {
      // A frozen server ignores SIGTERM until it runs again.
      (child as ChildProcess | null)?.kill("SIGCONT");
      await halt();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
