import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// docs/decisions/ holds one record per decision, NNNN-title.md, and an index (docs/decisions/README.md says how to
// add one). The records are numbered without gaps, each has a status, a context, the decision and its consequences,
// and the index lists each with the same title and status. docs/decisions.md is only a pointer now: a section
// appended there (the old way, which a union merge of an older branch brings back) fails here until it is moved into
// a record. Lives beside the code-sample check of the docs.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const folder = join(root, "docs/decisions");

const RECORD_NAME = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/;
const STATUS = /^Status: (?:accepted|(?:partly )?superseded by .+)$/;
const MAX_LINES = 700;

interface Docs {
  records: Map<string, string>;
  index: string;
  pointer: string;
}

function read(): Docs {
  const records = new Map<string, string>();
  for (const name of readdirSync(folder).sort())
    if (name !== "README.md") records.set(name, readFileSync(join(folder, name), "utf8"));
  return {
    records,
    index: readFileSync(join(folder, "README.md"), "utf8"),
    pointer: readFileSync(join(root, "docs/decisions.md"), "utf8"),
  };
}

/** What is wrong with the records, the index and the pointer page; empty when nothing is. */
function problemsOf({ records, index, pointer }: Docs): string[] {
  const problems: string[] = [];
  const seen: Array<{ name: string; title: string; status: string }> = [];
  for (const [name, text] of records) {
    const number = RECORD_NAME.exec(name)?.[1];
    if (number === undefined) {
      problems.push(`${name}: not named NNNN-title.md`);
      continue;
    }
    const lines = text.split("\n");
    if (lines.length > MAX_LINES) problems.push(`${name}: ${lines.length} lines, over ${MAX_LINES}`);
    const heading = /^# (\d{4})\. (.+)$/.exec(lines[0] ?? "");
    if (heading?.[1] !== number) problems.push(`${name}: the first line is not "# ${number}. Title"`);
    const status = lines.find((line) => line.startsWith("Status:")) ?? "";
    if (!STATUS.test(status)) problems.push(`${name}: no "Status: accepted" or "Status: superseded by NNNN" line`);
    for (const [, later, target] of status.matchAll(/\[(\d{4})\]\(([^)]+)\)/g))
      if (!records.has(target!) || !target!.startsWith(`${later}-`) || later! <= number)
        problems.push(`${name}: its status names ${later}, which is not a later record at ${target}`);
    let at = -1;
    for (const section of ["## Context", "## Decision", "## Consequences"]) {
      const found = lines.indexOf(section);
      if (found === -1 || lines.lastIndexOf(section) !== found || found < at)
        problems.push(`${name}: "${section}" missing, repeated or out of order`);
      else if ((lines.slice(found + 1).find((line) => line.trim() !== "") ?? "## ").startsWith("## "))
        problems.push(`${name}: "${section}" is empty`);
      at = found;
    }
    seen.push({ name, title: heading?.[2] ?? "", status: status.slice("Status: ".length) });
  }
  seen.forEach(({ name }, i) => {
    if (!name.startsWith(`${String(i + 1).padStart(4, "0")}-`)) problems.push(`${name}: expected record ${i + 1}`);
  });
  const rows = [...index.matchAll(/^\| \[(\d{4})\]\(([^)]+)\) \| (.+?) \| (.+?) \| (.+) \|$/gm)];
  if (rows.length !== seen.length) problems.push(`the index has ${rows.length} rows for ${seen.length} records`);
  seen.forEach(({ name, title, status }, i) => {
    const row = rows[i];
    if (row === undefined) return;
    if (row[2] !== name) problems.push(`index row ${i + 1} links ${row[2]}, not ${name}`);
    if (row[3]!.replaceAll("\\|", "|") !== title) problems.push(`index row ${i + 1}: the title is not ${name}'s`);
    if (row[4] !== status) problems.push(`index row ${i + 1}: the status is not ${name}'s`);
  });
  if (/^## /m.test(pointer) || pointer.split("\n").length > 20)
    problems.push("docs/decisions.md holds sections again: move each into a record of docs/decisions/");
  return problems;
}

describe("the decision records in docs/decisions/", () => {
  it("are numbered, complete, listed in the index, and docs/decisions.md only points at them", () => {
    const docs = read();
    expect(docs.records.size).toBeGreaterThanOrEqual(73);
    expect(problemsOf(docs)).toEqual([]);
  });

  it("catches a planted mistake of each kind", () => {
    const docs = read();
    const [first, second] = [...docs.records.keys()];
    const withRecord = (name: string, edit: (text: string) => string): Docs => ({
      ...docs,
      records: new Map([...docs.records].map(([n, text]) => [n, n === name ? edit(text) : text])),
    });
    const planted: Array<[Docs, string]> = [
      [withRecord(first!, (text) => text.replace(/^Status: .*$/m, "Status: maybe")), 'no "Status: accepted"'],
      [withRecord(first!, (text) => text.replace("\n## Consequences\n", "\n## What follows\n")), "## Consequences"],
      [withRecord(first!, (text) => text.replace(/^# 0001\./, "# 0002.")), "the first line"],
      [
        withRecord(second!, (text) => text.replace(/^Status: .*$/m, "Status: superseded by [0001](0001-x.md)")),
        "not a later record",
      ],
      [withRecord(first!, (text) => `${text}${"line\n".repeat(MAX_LINES)}`), "over 700"],
      [withRecord(first!, (text) => text.replace(/## Context\n\n[^#]+/, "## Context\n\n")), "is empty"],
      [{ ...docs, records: new Map([...docs.records].filter(([name]) => name !== second)) }, "expected record 2"],
      [{ ...docs, index: docs.index.replace(/^\| \[0002\].*\n/m, "") }, "the index has"],
      [{ ...docs, pointer: `${docs.pointer}\n## A new decision\n- appended the old way\n` }, "holds sections again"],
    ];
    for (const [variant, problem] of planted)
      expect(
        problemsOf(variant).some((found) => found.includes(problem)),
        problem,
      ).toBe(true);
  });
});
