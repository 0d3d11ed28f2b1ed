import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// Core must run unchanged on every runtime: no Node built-ins, no HTTP framework, no database driver.
const FORBIDDEN =
  /from\s+["'](node:[^"']+|hono(\/[^"']*)?|@hono\/[^"']+|postgres|@libsql\/client|mongodb|drizzle-orm(\/[^"']*)?|fs|path|crypto|buffer)["']/;
// The only runtime-specific files, each chosen by the "node" import condition.
const ALLOWED = new Set(["password/native-argon2.node.ts", "jwt/native-jws.node.ts"]);

function files(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    const rel = prefix + name;
    if (statSync(full).isDirectory()) return files(full, `${rel}/`);
    return rel.endsWith(".ts") && !rel.endsWith(".test.ts") ? [rel] : [];
  });
}

describe("core layering", () => {
  it("imports no node:*, hono or database driver", () => {
    const root = new URL(".", import.meta.url).pathname;
    const offenders = files(root).filter((f) => !ALLOWED.has(f) && FORBIDDEN.test(readFileSync(join(root, f), "utf8")));
    expect(offenders).toEqual([]);
    expect(files(root).length).toBeGreaterThan(20);
  });

  it("flags a forbidden import (the check itself works)", () => {
    expect(FORBIDDEN.test('import { readFile } from "node:fs";')).toBe(true);
    expect(FORBIDDEN.test('import { Hono } from "hono";')).toBe(true);
    expect(FORBIDDEN.test('import postgres from "postgres";')).toBe(true);
  });
});
