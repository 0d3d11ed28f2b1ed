import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AuthConfigError } from "@latchkey/core";
import { REDIS_COUNTERS_DEFAULTS, REDIS_COUNTERS_OPTION_SHAPE, redisCounters } from "./redis-counters.ts";

// The docs' claims about redisCounters that can be checked mechanically: the option tables of docs/stores.md and
// this package's README list exactly the options the code accepts, with its defaults, and every
// `redisCounters({ ... })` example in the READMEs and docs passes only options that exist.

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** Rows `| \`name\` | default | what |` of the table whose header's first cell is `header`. */
function optionTable(text: string, header: RegExp): Map<string, string> {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => header.test(l.split("|")[1]?.trim() ?? "") && l.startsWith("|"));
  expect(start, `no table headed ${header}`).toBeGreaterThanOrEqual(0);
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const [, name, value] = line.split("|").map((c) => c.trim());
    const option = /^`(\w+)`$/.exec(name ?? "")?.[1];
    expect(option, `row without an option name: ${line}`).toBeDefined();
    rows.set(option!, (value ?? "").replace(/^`|`$/g, ""));
  }
  return rows;
}

/** Markdown files that show code: the root README, every package and example README, docs/*.md. */
function markdownFiles(): string[] {
  const files = ["README.md"];
  for (const dir of ["packages", "examples"])
    for (const name of readdirSync(join(ROOT, dir)))
      if (existsSync(join(ROOT, dir, name, "README.md"))) files.push(`${dir}/${name}/README.md`);
  for (const name of readdirSync(join(ROOT, "docs"))) if (name.endsWith(".md")) files.push(`docs/${name}`);
  return files;
}

/** The top-level keys of each `redisCounters({ ... })` call in the text (shorthand properties included). */
function redisCountersCalls(text: string): string[][] {
  const calls: string[][] = [];
  for (const match of text.matchAll(/redisCounters\(\{/g)) {
    let depth = 0;
    let end = match.index! + "redisCounters(".length;
    for (; end < text.length; end++) {
      if (text[end] === "{") depth++;
      else if (text[end] === "}" && --depth === 0) break;
    }
    const body = text.slice(match.index! + "redisCounters({".length, end);
    // Keys at the literal's own level: nested braces, parentheses and strings removed first.
    let flat = body.replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '""');
    for (let previous = ""; previous !== flat; ) {
      previous = flat;
      flat = flat.replace(/\{[^{}]*\}|\([^()]*\)/g, "");
    }
    calls.push(
      flat
        .split(",")
        .map((part) => /^\s*(\w+)\s*(?::|$)/.exec(part)?.[1])
        .filter((k): k is string => k !== undefined),
    );
  }
  return calls;
}

describe("the docs describe redisCounters as it is", () => {
  const accepted = Object.keys(REDIS_COUNTERS_OPTION_SHAPE).sort();

  it("docs/stores.md and the package README list exactly the accepted options, with the code's defaults", () => {
    for (const [file, header] of [
      ["docs/stores.md", /^`redisCounters` option$/],
      ["packages/redis-store/README.md", /^option$/],
    ] as const) {
      const table = optionTable(read(file), header);
      expect([...table.keys()].sort(), file).toEqual(accepted);
      for (const [name, value] of table) {
        if (name === "url") expect(value, `${file}: url`).toBe("(required)");
        else expect(value, `${file}: ${name}`).toBe(REDIS_COUNTERS_DEFAULTS[name]);
      }
    }
  });

  it("every redisCounters({ ... }) example in the READMEs and docs uses only accepted options", () => {
    const seen: string[] = [];
    for (const file of markdownFiles()) {
      for (const keys of redisCountersCalls(read(file))) {
        seen.push(file);
        expect(
          keys.filter((k) => !accepted.includes(k)),
          `${file}: redisCounters({ ${keys.join(", ")} })`,
        ).toEqual([]);
      }
    }
    // The check reads the examples it is meant to read.
    expect(seen).toContain("docs/stores.md");
    expect(seen).toContain("packages/redis-store/README.md");
  });

  it("an option the docs do not list is refused, naming the nearest one", () => {
    expect(() => redisCounters({ url: "redis://127.0.0.1:1", comandTimeout: "1s" } as never)).toThrow(AuthConfigError);
    expect(() => redisCounters({ url: "redis://127.0.0.1:1", comandTimeout: "1s" } as never)).toThrow(
      /redisCounters\.comandTimeout.*commandTimeout/,
    );
  });
});
