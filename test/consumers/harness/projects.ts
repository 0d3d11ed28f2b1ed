import { execFile, spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";

/** A tarball per public package, by name. */
export type Packs = Record<string, string>;

/** The packages a consumer's own Hono app installs. */
export const HOST_APP = ["@latchkey/core", "@latchkey/hono-adapter", "@latchkey/memory-store"];

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment a consumer's process gets: ours without NODE_PATH, which pnpm's shims point at the workspace's
 * store (require() would find workspace packages through it).
 */
/**
 * The environment a consumer's command gets: this process's, without what Vitest adds to it (NODE_ENV=test and
 * its copy of import.meta.env: DEV=1 makes an Astro build development), then the test's own variables.
 */
export function consumerEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["NODE_PATH", "NODE_ENV", "DEV", "PROD", "SSR", "MODE", "BASE_URL"]) delete env[name];
  return { ...env, ...extra };
}

/** Runs a command to completion (never throws on a non-zero exit; the caller asserts). */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: consumerEnv(options.env),
        timeout: options.timeoutMs ?? 240_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr: error && !stderr ? error.message : stderr });
      },
    );
  });
}

/** What a failed run printed, for assertion messages. */
export const printed = (result: RunResult) =>
  `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;

/**
 * A fresh npm project in `dir` (outside the workspace, so nothing resolves from the workspace's node_modules):
 * the chosen Latchkey tarballs plus third-party packages from the registry, installed with plain npm.
 */
export async function npmProject(
  dir: string,
  packs: Packs,
  latchkey: string[],
  registry: Record<string, string>,
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const dependencies: Record<string, string> = { ...registry };
  for (const name of latchkey) {
    const tarball = packs[name];
    if (!tarball) throw new Error(`no tarball for ${name}`);
    dependencies[name] = `file:${tarball}`;
  }
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "latchkey-consumer", private: true, type: "module", dependencies }, null, 2)}\n`,
  );
  const result = await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--no-update-notifier"], {
    cwd: dir,
    timeoutMs: 420_000,
  });
  if (result.code !== 0) throw new Error(`npm install in ${dir} failed:\n${printed(result)}`);
}

/** Copies files or folders (relative to `from`) into `to`. */
export function copyInto(from: string, to: string, entries: string[]): void {
  for (const entry of entries) cpSync(join(from, entry), join(to, entry), { recursive: true });
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A long-running process (a server); `output()` is everything it printed so far. */
export interface Started {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function start(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Started {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: consumerEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout?.on("data", (d: Buffer) => void (text += d.toString()));
  child.stderr?.on("data", (d: Buffer) => void (text += d.toString()));
  return {
    child,
    output: () => text,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
      }),
  };
}

/** Polls `url` until it answers (any status below 500) or the process exits or `timeoutMs` passes. */
export async function waitForHttp(url: string, server: Started, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null)
      throw new Error(`the server exited (${server.child.exitCode}) before answering:\n${server.output()}`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${server.output()}`);
}

/** A loopback HTTP endpoint that collects the JSON emails an app POSTs to it (the examples' EMAIL_WEBHOOK_URL). */
export interface EmailCapture {
  url: string;
  outbox: Array<{ to: string; text: string }>;
  close(): Promise<void>;
}

export async function emailCapture(): Promise<EmailCapture> {
  const outbox: EmailCapture["outbox"] = [];
  const server: Server = createHttpServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => void (body += d.toString()));
    req.on("end", () => {
      try {
        outbox.push(JSON.parse(body) as { to: string; text: string });
        res.writeHead(204).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/emails`,
    outbox,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
