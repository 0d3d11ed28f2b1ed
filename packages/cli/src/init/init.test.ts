import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { migrate } from "../migrate/index.ts";

const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));
// Inside the package's node_modules, so the written config resolves @latchkey/* like it would in a project.
const scratch = fileURLToPath(new URL("../../node_modules/.init-test/", import.meta.url));
const run = promisify(execFile);

async function latchkey(cwd: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd, encoding: "utf8" });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** `latchkey serve --port 0` with `env`, expected to refuse to start. */
async function latchkeyWith(cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0"], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()));
  child.stdout.on("data", () => undefined);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, stderr };
}

/** Serves the config in `cwd` with `env`, checks /health and /auth/jwks, stops it with SIGTERM. */
async function serveAndProbe(cwd: string, env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => void (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => void (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    void exit.then((code) => reject(new Error(`serve exited (${code}):\n${out}`)));
  });
  try {
    const health = await fetch(`${url}/health`);
    const jwks = await fetch(`${url}/auth/jwks`);
    return { health: health.status, jwks: ((await jwks.json()) as { keys: unknown[] }).keys.length };
  } finally {
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  }
}

describe("latchkey init", { timeout: 90_000 }, () => {
  let dir: string;
  let db: TestDatabase;
  beforeAll(async () => {
    mkdirSync(scratch, { recursive: true });
    dir = mkdtempSync(join(scratch, "project-"));
    db = await createTestSqliteFile();
    await migrate(db.url);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db?.dispose();
  });

  it("writes a commented latchkey.config.ts, says what to run next, and never overwrites without --force", async () => {
    const first = await latchkey(dir, "init");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("Wrote latchkey.config.ts");
    expect(first.stdout).toContain("npx latchkey migrate --database");
    expect(first.stdout).toContain("npx latchkey serve");
    const text = readFileSync(join(dir, "latchkey.config.ts"), "utf8");
    for (const part of ["LATCHKEY_DATABASE_URL", "LATCHKEY_SECRET", "jwt(", "apiKeys(", "emailOtp(", "cors:"])
      expect(text).toContain(part);

    writeFileSync(join(dir, "latchkey.config.ts"), "// mine\n");
    const again = await latchkey(dir, "init");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists; pass --force/);
    expect(readFileSync(join(dir, "latchkey.config.ts"), "utf8")).toBe("// mine\n");
    const forced = await latchkey(dir, "init", "--force");
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, "latchkey.config.ts"), "utf8")).toBe(text);
    expect((await latchkey(dir, "init", "--file", "auth.yaml")).code).toBe(2);
  });

  it("the written TypeScript config type-checks under strict tsc", async () => {
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: [],
        },
        files: ["latchkey.config.ts"],
      }),
    );
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const result = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: dir }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
    );
    expect("failed" in result ? result.stdout : "").toBe("");
  });

  it("latchkey serve runs the written config from the environment (.ts and .mjs), and names a missing variable", async () => {
    const env = {
      NODE_ENV: "development",
      LATCHKEY_SECRET: "i".repeat(64),
      LATCHKEY_DATABASE_URL: db.url,
      LATCHKEY_BASE_URL: "http://127.0.0.1",
    };
    expect(await serveAndProbe(dir, env)).toEqual({ health: 200, jwks: 1 });
    const js = await latchkey(dir, "init", "--file", "other.config.mjs");
    expect(js.code).toBe(0);
    expect(js.stdout).toContain("npx latchkey serve --config other.config.mjs");
    expect(readFileSync(join(dir, "other.config.mjs"), "utf8")).not.toContain(": Record<");
    expect(await serveAndProbe(dir, env, ["--config", "other.config.mjs"])).toEqual({ health: 200, jwks: 1 });

    // Production without an email sender: codes and links would never arrive, so the starter refuses, naming it.
    const noSender = await latchkeyWith(dir, {
      ...env,
      NODE_ENV: "production",
      LATCHKEY_BASE_URL: "https://a.example",
    });
    expect(noSender.code).toBe(1);
    expect(noSender.stderr).toMatch(/no email sender: production needs email\.sender/);

    const missing = await latchkey(dir, "serve", "--port", "0");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/LATCHKEY_SECRET is not set/);
    expect(existsSync(join(dir, "latchkey.config.ts"))).toBe(true);
  });
});
