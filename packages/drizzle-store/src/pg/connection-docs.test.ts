import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Duration } from "@latchkey/core";
import { parseDuration } from "@latchkey/core/internal";
import { PG_DEFAULTS } from "./connection.ts";

// docs/stores.md's pool-options table is a claim about this file: the same options, the same defaults.

function poolTable(): Map<string, string> {
  const lines = readFileSync(new URL("../../../../docs/stores.md", import.meta.url), "utf8").split("\n");
  const intro = lines.findIndex((l) => l.includes("Pool options (with `url`"));
  expect(intro, "the pool-options table is gone from docs/stores.md").toBeGreaterThanOrEqual(0);
  const rows = new Map<string, string>();
  for (const line of lines.slice(intro + 1).map((l) => l.trim())) {
    if (rows.size > 0 && !line.startsWith("|")) break;
    const cells = line.split("|").map((c) => c.trim());
    const name = /^`(\w+)`$/.exec(cells[1] ?? "")?.[1];
    if (name) rows.set(name, (cells[2] ?? "").replace(/^`|`$/g, ""));
  }
  return rows;
}

describe("docs/stores.md describes the PostgreSQL pool as it is", () => {
  it("the pool-options table lists exactly the pool options, with the code's defaults", () => {
    const table = poolTable();
    const options = Object.keys(PG_DEFAULTS).map((k) => k.replace(/Ms$/, ""));
    expect([...table.keys()].sort()).toEqual(options.sort());
    for (const [key, value] of Object.entries(PG_DEFAULTS)) {
      const documented = table.get(key.replace(/Ms$/, ""))!;
      const parsed = key.endsWith("Ms") ? parseDuration(JSON.parse(documented) as Duration, key) : Number(documented);
      expect(parsed, `${key}: ${documented}`).toBe(value);
    }
  });
});
