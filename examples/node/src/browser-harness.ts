// What the demo's Chromium suites share (browser-*.test.ts, passkey-*.browser.test.ts, organization.browser.test.ts):
// the built pages, the demo server started as a developer starts it (`src/server.ts` on an embedded libSQL file), its
// store opened beside it, Debian's Chromium through playwright-core, a user signed up over HTTP, and the axe-core
// check of a page.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { expect } from "vitest";
import type { FullStore } from "@latchkey/core";
import { openDemoDatabase } from "./database.ts";
import { WEB_ROOT } from "./static.ts";

const CHROMIUM = "/usr/bin/chromium";
export const PASSWORD = "correct horse battery";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Newest modification time under a folder (the sources a build depends on). */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** Builds the pages with Vite unless dist-web is newer than web/ and the client package it bundles. */
export async function ensurePagesBuilt(): Promise<void> {
  const built = join(WEB_ROOT, "index.html");
  const client = here("../node_modules/@latchkey/client/dist");
  if (existsSync(built) && statSync(built).mtimeMs > Math.max(newest(here("../web")), newest(client))) return;
  const { build } = await import("vite");
  await build({ configFile: here("../web/vite.config.ts"), logLevel: "warn" });
}

/** A running demo server: its origin, its console so far, its store, and how to stop it. */
export interface RunningDemo {
  api: string;
  output(): string;
  store: FullStore;
  stop(): Promise<void>;
}

/** Emails the demo printed to `to` (its console sender prints them in development). */
function emailsTo(demo: RunningDemo, to: string): string[] {
  // Development mode's block opens with a line saying so; the recipient line follows it.
  return demo
    .output()
    .split("[latchkey email] ")
    .filter((block) => block.startsWith(`to=${to} `) || block.includes(`\nto=${to} `));
}

/** Runs `action`, then waits for the next email the demo prints to `to` and returns its text. */
export async function nextEmail(demo: RunningDemo, to: string, action: () => Promise<unknown>): Promise<string> {
  const before = emailsTo(demo, to).length;
  await action();
  for (let i = 0; i < 400; i++) {
    const all = emailsTo(demo, to);
    // An email is complete once the next console line started (or, for the last one, after its body line).
    if (all.length > before && /\n\S.*\n/.test(all[before]!)) return all[before]!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no email to ${to}; console:\n${demo.output()}`);
}

/**
 * Starts `src/server.ts` on the libSQL file `databaseUrl`, reachable at `http://<host>:<port>` (its `baseUrl`):
 * `127.0.0.1`, or `localhost` where the browser needs a host name (WebAuthn refuses IP addresses). `env` adds to its
 * environment; with `provider`, the demo's OpenID provider must have started too.
 */
export async function startDemo(options: {
  databaseUrl: string;
  host: "127.0.0.1" | "localhost";
  env?: Record<string, string>;
  provider: boolean;
}): Promise<RunningDemo> {
  let server: ChildProcess;
  let output = "";
  let api = "";
  // The demo needs its own origin (baseUrl) before it listens, so it cannot take port 0: it gets a port that was
  // free a moment ago, and if another process took it meanwhile the demo exits with EADDRINUSE and another is tried.
  for (let attempt = 1; ; attempt++) {
    const apiPort = await freePort();
    api = `http://${options.host}:${apiPort}`;
    output = "";
    server = spawn(process.execPath, ["--import", "tsx", here("./server.ts")], {
      env: {
        ...process.env,
        PORT: String(apiPort),
        LATCHKEY_BASE_URL: api,
        LATCHKEY_SECRET: "b".repeat(64),
        LATCHKEY_DATABASE_URL: options.databaseUrl,
        // The demo's own OpenID provider ("Sign in with Example ID") on a free port of its own choosing, or none.
        LATCHKEY_DEMO_PROVIDER_PORT: options.provider ? "0" : "off",
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const keep = (d: Buffer) => {
      output += d.toString();
    };
    server.stdout!.on("data", keep);
    server.stderr!.on("data", keep);
    const started = await new Promise<boolean>((resolve, reject) => {
      server.once("exit", (code) =>
        output.includes("EADDRINUSE") && attempt < 5
          ? resolve(false)
          : reject(new Error(`the demo exited (${code}):\n${output}`)),
      );
      // Its own line with the port it bound: the page talks to this process, not to whoever had the port.
      const check = () => {
        if (server.exitCode !== null) return;
        if (output.includes(`listening on http://localhost:${apiPort}`) && output.includes("Store:")) {
          if (options.provider && !output.includes("Example ID (a local OpenID provider"))
            reject(new Error(`no provider:\n${output}`));
          resolve(true);
        } else setTimeout(check, 25);
      };
      check();
    });
    if (started) break;
  }
  const store = await openDemoDatabase(options.databaseUrl);
  return {
    api,
    output: () => output,
    store,
    async stop() {
      if (server.exitCode === null) {
        const exited = new Promise((r) => server.once("exit", r));
        server.kill();
        await exited;
      }
    },
  };
}

/** A real Chromium must start: a missing browser fails the suite (.ci/run installs Debian's chromium). */
function checkChromium(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
}

/** Chromium with a profile folder of its own (one context for the whole suite). */
export function launchChromiumProfile(profile: string): Promise<BrowserContext> {
  checkChromium();
  return chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Chromium without a profile: each test opens a context of its own. */
export function launchChromium(): Promise<Browser> {
  checkChromium();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Signs a user up over HTTP from `localAddress` (127.0.0.N: a per-IP rate-limit bucket of its own) and puts the
 * session cookie that sign-up set into `context`.
 */
export async function signUpInto(
  context: BrowserContext,
  api: string,
  body: Record<string, string>,
  localAddress: string,
): Promise<void> {
  const json = JSON.stringify(body);
  // The demo listens on 127.0.0.1: a `localhost` origin is reached there (and the source address stays IPv4).
  const url = new URL("/auth/sign-up/email", api);
  url.hostname = "127.0.0.1";
  const { status, cookie } = await new Promise<{ status: number; cookie: string }>((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(json) },
        localAddress,
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, cookie: String(res.headers["set-cookie"]?.[0] ?? "") }),
        );
      },
    );
    req.once("error", reject);
    req.end(json);
  });
  expect(status).toBe(200);
  const [name, value] = cookie.split(";")[0]!.split("=") as [string, string];
  await context.addCookies([{ name, value, url: api, httpOnly: true, sameSite: "Lax" }]);
}

/** Waits for the page to catch up (a generous ceiling: nothing here measures speed). */
export const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });

/**
 * The serious and critical axe violations of the page as it stands (after opening `url`, when given, and waiting for
 * its heading and the session): rule, impact and the elements it names.
 */
export async function seriousViolations(page: Page, url?: string): Promise<string[]> {
  if (url !== undefined) {
    await page.goto(url);
    await page.locator("main h1, main h2").first().waitFor();
    await poll(() => page.getByTestId("who").textContent()).not.toBe("…");
  }
  const { violations } = await new AxeBuilder({ page }).analyze();
  const path = new URL(page.url()).pathname;
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${path}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
