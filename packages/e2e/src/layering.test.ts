import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// The suite must run unchanged inside Bun, Deno and workerd: only the Node-side tooling may import node:*.
const NODE_TOOLING = new Set([
  "runners/spawn.ts",
  "runners/process.ts",
  "runners/workerd.ts",
  "workerd/bundle.ts",
  "workerd/miniflare.ts",
  "workerd/index.ts",
]);
// Statements only (line start): JSDoc examples may show how a Vitest user wires the suite.
const FORBIDDEN =
  /^(?:import|export)\b[^;]*?from\s+["'](node:[^"']+|fs|path|os|child_process|esbuild|miniflare|vitest)["']/m;

function files(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    const rel = prefix + name;
    if (statSync(full).isDirectory()) return files(full, `${rel}/`);
    return rel.endsWith(".ts") && !rel.endsWith(".test.ts") ? [rel] : [];
  });
}

describe("e2e layering", () => {
  it("the suite, its journeys and the in-runtime runners import no Node API, bundler or test framework", () => {
    const root = new URL(".", import.meta.url).pathname;
    const neutral = files(root).filter((f) => !NODE_TOOLING.has(f));
    expect(neutral).toEqual(
      expect.arrayContaining([
        "harness/client.ts",
        "journeys/jwt.ts",
        "app.ts",
        "runners/bun.ts",
        "runners/deno.ts",
        "runners/workerd-worker.ts",
      ]),
    );
    expect(neutral.filter((f) => FORBIDDEN.test(readFileSync(join(root, f), "utf8")))).toEqual([]);
  });

  it("flags a Node import (the check itself works)", () => {
    expect(FORBIDDEN.test('import { spawn } from "node:child_process";')).toBe(true);
    expect(FORBIDDEN.test('import { it } from "vitest";')).toBe(true);
    expect(FORBIDDEN.test('import {\n  readFile,\n} from "node:fs";')).toBe(true);
    expect(FORBIDDEN.test(' * import { it } from "vitest";')).toBe(false);
  });
});
