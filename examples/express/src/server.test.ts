import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readSettings } from "./settings.ts";

const EXAMPLE_DIR = fileURLToPath(new URL("..", import.meta.url));

/** Runs `pnpm start`'s command with `env` and resolves with its exit code and output once it exits. */
function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const { NODE_ENV: _inherited, ...parent } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
    cwd: EXAMPLE_DIR,
    env: { ...parent, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()));
  child.stdout.on("data", () => child.kill("SIGTERM")); // it listened: the test below fails on the exit code
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stderr })));
}

// Issue 49 item 2: started for production, the example is production: it refuses to start without what it needs
// instead of switching to development (codes in the log, cookies without Secure) because the URL is http://.
describe("Express example: production is production", () => {
  it("NODE_ENV=production without secret, https base URL or proxy setting refuses to start, naming each", async () => {
    const { code, stderr } = await start({ NODE_ENV: "production" });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /Cannot start: .*LATCHKEY_PROXY_HOPS.*LATCHKEY_SECRET.*LATCHKEY_BASE_URL.*NODE_ENV=development/,
    );
    const http = await start({
      NODE_ENV: "production",
      LATCHKEY_SECRET: "p".repeat(64),
      LATCHKEY_BASE_URL: "http://app.example",
      LATCHKEY_PROXY_HOPS: "1",
    });
    expect(http.code).toBe(1);
    expect(http.stderr).toMatch(/LATCHKEY_BASE_URL \(the public https:\/\/ origin/);
    expect(http.stderr).not.toMatch(/LATCHKEY_SECRET|LATCHKEY_PROXY_HOPS \(/);
  });

  it("production settings: what was given, X-Forwarded-For only behind the hops asked for; development is explicit", () => {
    const env = (vars: Record<string, string>) => (name: string) => vars[name];
    const prod = readSettings(
      env({ LATCHKEY_SECRET: "s".repeat(64), LATCHKEY_BASE_URL: "https://app.example", LATCHKEY_PROXY_HOPS: "2" }),
      3000,
    );
    expect(prod).toMatchObject({ environment: "production", baseUrl: "https://app.example", notes: [] });
    const request = new Request("https://app.example/", {
      headers: { "x-forwarded-for": "198.51.100.1, 203.0.113.9, 10.0.0.2" },
    });
    expect(prod.getClientIp(request, { env: {} } as never)).toBe("203.0.113.9");
    const direct = readSettings(
      env({ LATCHKEY_SECRET: "s".repeat(64), LATCHKEY_BASE_URL: "https://app.example", LATCHKEY_PROXY_HOPS: "0" }),
      3000,
    );
    expect(direct.getClientIp(request, { env: {} } as never)).toBeNull(); // the socket's, never the header
    expect(() => readSettings(env({ NODE_ENV: "development", LATCHKEY_PROXY_HOPS: "-1" }), 3000)).toThrow(
      /LATCHKEY_PROXY_HOPS must be 0 or a positive integer/,
    );
    const dev = readSettings(env({ NODE_ENV: "development" }), 4000);
    expect(dev).toMatchObject({ environment: "development", baseUrl: "http://localhost:4000" });
    expect(dev.secret).toHaveLength(64);
    expect(dev.notes).toEqual([expect.stringMatching(/random secret/)]);
  });
});
