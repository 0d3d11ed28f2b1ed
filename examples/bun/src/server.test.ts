import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "@latchkey/e2e/process";

const EXAMPLE_DIR = fileURLToPath(new URL("..", import.meta.url));
let server: RunningServer;

describe("Bun example: Bun.serve delegating to auth.handler", () => {
  beforeAll(async () => {
    // The bun binary from npm (this example's devDependency), exactly what `pnpm start` runs.
    server = await startServer(join(EXAMPLE_DIR, "node_modules/.bin/bun"), ["run", "src/server.ts"], {
      cwd: EXAMPLE_DIR,
      // Port 0: the server binds a free port itself and prints it (the ready line below reads it).
      env: { PORT: "0", LATCHKEY_SECRET: "b".repeat(64), NODE_ENV: "development" },
      ready: /listening on (http:\/\/localhost:\d+)/,
    });
  });
  afterAll(() => server?.stop());

  it("answers get-session, signs up and reads the session back by cookie", async () => {
    expect(await (await fetch(`${server.url}/auth/get-session`)).json()).toBeNull();
    const up = await fetch(`${server.url}/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@bun.example", password: "correct horse battery" }),
    });
    expect(up.status, await up.clone().text()).toBe(200);
    const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
    const session = await fetch(`${server.url}/auth/get-session`, { headers: { cookie } });
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe("ada@bun.example");
  });

  it("rate-limits by the socket address, ignoring a spoofed X-Forwarded-For", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await fetch(`${server.url}/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${i}` },
        body: JSON.stringify({ email: "not-an-email", password: "no email" }),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(10).fill(400), 429]);
  });

  it("serves the explorer script from the installed package (offline)", async () => {
    const res = await fetch(`${server.url}/auth/reference/scalar.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
  });
});

// Issue 49 item 2: started for production, the example is production: it refuses to start without what it needs
// (it used to switch to development, printing sign-in codes, because the base URL was http:// or unset).
describe("Bun example: production is production", () => {
  it("NODE_ENV=production without secret, https base URL or proxy setting refuses to start, naming each", async () => {
    const { NODE_ENV: _inherited, ...parent } = process.env;
    const child = spawn(join(EXAMPLE_DIR, "node_modules/.bin/bun"), ["run", "src/server.ts"], {
      cwd: EXAMPLE_DIR,
      env: { ...parent, PORT: "0", NODE_ENV: "production", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()));
    child.stdout.on("data", () => child.kill("SIGTERM")); // it listened: the exit code below says so
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /Cannot start: .*LATCHKEY_PROXY_HOPS.*LATCHKEY_SECRET.*LATCHKEY_BASE_URL.*NODE_ENV=development/,
    );
  });
});
