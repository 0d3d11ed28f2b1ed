import { describe, expect, it } from "vitest";
import { FIX_COMMAND, generateOptionsDoc, optionsDoc } from "../../../scripts/options-docs.mjs";

// docs/options.md's tables are written from the option schemas (one definition per option): the committed file
// must be what the generator gives, so a schema change without the docs (or a hand edit of a table) fails here.

describe("docs/options.md's tables are generated from the option schemas", () => {
  it("the committed tables are the generated ones", () => {
    const { committed, generated } = optionsDoc();
    if (committed !== generated) console.error(`docs/options.md is out of date: run \`${FIX_COMMAND}\``);
    expect(committed, `docs/options.md is out of date: run \`${FIX_COMMAND}\``).toBe(generated);
  });

  it("rewrites what lies between the markers and nothing else", () => {
    const text = "intro\n<!-- options-table:auditLog -->\n| stale |\n<!-- /options-table:auditLog -->\noutro\n";
    const out = generateOptionsDoc(text);
    expect(out.startsWith("intro\n<!-- options-table:auditLog -->\n| option | type | default | notes |\n")).toBe(true);
    expect(out).toContain('| `auditLog.retention` | `Duration \\| false` | `"90d"` |');
    expect(out).not.toContain("| stale |");
    expect(out.endsWith("<!-- /options-table:auditLog -->\noutro\n")).toBe(true);
  });
});
