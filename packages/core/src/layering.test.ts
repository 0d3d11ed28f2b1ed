import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// Core must run unchanged on every runtime: no Node built-ins, no HTTP framework, no database driver.
// Every way a module is named: `from "x"` (import and re-export), a bare `import "x"`, `import("x")` and `require("x")`.
const MODULE = String.raw`(node:[^"']+|hono(\/[^"']*)?|@hono\/[^"']+|postgres|@libsql\/client|mongodb|drizzle-orm(\/[^"']*)?|fs|path|crypto|buffer)`;
const FORBIDDEN = new RegExp(
  String.raw`(?:\bfrom\s*|\bimport\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["'\x60]${MODULE}["'\x60]`,
);
// The only runtime-specific files, each chosen by the "node" import condition.
const ALLOWED = new Set(["password/native-argon2.node.ts", "jwt/native-jws.node.ts", "crypto/native-sha256.node.ts"]);

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
    expect(FORBIDDEN.test('export { createHash } from "node:crypto";')).toBe(true);
    expect(FORBIDDEN.test('import "node:fs";')).toBe(true);
    expect(FORBIDDEN.test("import 'node:path'")).toBe(true);
    expect(FORBIDDEN.test('const fs = await import("node:fs");')).toBe(true);
    expect(FORBIDDEN.test("const { Buffer } = await import ( 'node:buffer' )")).toBe(true);
    expect(FORBIDDEN.test("const os = import(`node:os`);")).toBe(true);
    expect(FORBIDDEN.test('const crypto = require("node:crypto");')).toBe(true);
    // Names that merely contain a forbidden one are fine.
    expect(FORBIDDEN.test('import { hashSecret } from "../crypto/crypto.ts";')).toBe(false);
    expect(FORBIDDEN.test('import { x } from "./path-utils.ts";')).toBe(false);
  });
});
