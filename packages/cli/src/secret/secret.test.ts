import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generateSecret } from "./secret.ts";

const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));

describe("latchkey secret", () => {
  it("prints a fresh 64-character base62 secret each run", () => {
    const a = execFileSync(process.execPath, [bin, "secret"], { encoding: "utf8" }).trim();
    const b = execFileSync(process.execPath, [bin, "secret"], { encoding: "utf8" }).trim();
    expect(a).toMatch(/^[0-9A-Za-z]{64}$/);
    expect(b).toMatch(/^[0-9A-Za-z]{64}$/);
    expect(a).not.toBe(b);
  });

  it("draws every base62 character (no modulo bias towards a subset)", () => {
    const seen = new Set(Array.from({ length: 200 }, () => generateSecret()).join(""));
    expect(seen.size).toBe(62);
  });
});
