import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
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

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: "127.0.0.1" });
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts `redis-server` (REDIS_SERVER_BIN or the one on PATH). Throws when it cannot: the calling test fails,
 * it does not skip (install it with `apt-get install redis-server`).
 */
export async function startTestRedis(): Promise<TestRedisServer> {
  const bin = process.env.REDIS_SERVER_BIN ?? "redis-server";
  const dir = await mkdtemp(join(tmpdir(), "latchkey-redis-"));
  const port = await freePort();
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
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    proc.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const spawned = new Promise<void>((resolve, reject) => {
      proc.once("error", (e) => reject(new Error(`cannot start ${bin}: ${e.message} (apt-get install redis-server)`)));
      proc.once("spawn", () => resolve());
    });
    await spawned;
    child = proc;
    try {
      await waitForPort(port, proc, 10_000);
    } catch (error) {
      proc.kill("SIGKILL");
      throw new Error(`${(error as Error).message}: ${stderr.trim()}`);
    }
  };
  const halt = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    await exited;
  };
  await start();
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
