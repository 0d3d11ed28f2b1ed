import { describe, expect, it } from "vitest";
import { Table } from "./table.ts";

interface Row {
  owner: string | null;
  tag: string;
}

const table = () => new Table<Row, "owner" | "tag">({ owner: (r) => r.owner, tag: (r) => r.tag });

describe("Table", () => {
  it("files each row under its key in every index, several rows per key, in filing order", () => {
    const t = table();
    t.set("a", { owner: "ada", tag: "x" });
    t.set("b", { owner: "ada", tag: "y" });
    t.set("c", { owner: "bob", tag: "x" });
    expect(t.rowsBy("owner", "ada")).toEqual([
      { owner: "ada", tag: "x" },
      { owner: "ada", tag: "y" },
    ]);
    expect(t.rowsBy("tag", "x").map((r) => r.owner)).toEqual(["ada", "bob"]);
    expect(t.firstBy("tag", "y")).toEqual({ owner: "ada", tag: "y" });
    expect(t.rowsBy("owner", "cy")).toEqual([]);
    expect(t.firstBy("owner", "cy")).toBeUndefined();
  });

  it("a row replaced under another key moves in that index only; a null key leaves the row out", () => {
    const t = table();
    t.set("a", { owner: "ada", tag: "x" });
    t.set("a", { owner: "bob", tag: "x" });
    expect(t.indexEntries("owner")).toEqual(new Map([["bob", new Set(["a"])]]));
    expect(t.indexEntries("tag")).toEqual(new Map([["x", new Set(["a"])]]));
    t.set("a", { owner: null, tag: "z" });
    expect(t.indexEntries("owner")).toEqual(new Map());
    expect(t.indexEntries("tag")).toEqual(new Map([["z", new Set(["a"])]]));
    t.set("a", { owner: "cy", tag: "z" });
    expect(t.indexEntries("owner")).toEqual(new Map([["cy", new Set(["a"])]]));
  });

  it("delete and clear take the index entries with the rows; no empty key is left", () => {
    const t = table();
    t.set("a", { owner: "ada", tag: "x" });
    t.set("b", { owner: "ada", tag: "x" });
    expect(t.delete("a")).toBe(true);
    expect(t.delete("a")).toBe(false);
    expect(t.indexEntries("owner")).toEqual(new Map([["ada", new Set(["b"])]]));
    t.delete("b");
    expect(t.indexEntries("owner").size).toBe(0);
    expect(t.indexEntries("tag").size).toBe(0);
    t.set("c", { owner: "bob", tag: "y" });
    t.clear();
    expect(t.size).toBe(0);
    expect(t.rowsBy("owner", "bob")).toEqual([]);
    expect(t.indexEntries("tag").size).toBe(0);
  });

  it("rowsBy answers a fresh array: deleting while walking it removes every row", () => {
    const t = table();
    for (const id of ["a", "b", "c"]) t.set(id, { owner: "ada", tag: id });
    for (const row of t.rowsBy("owner", "ada")) t.delete(row.tag);
    expect(t.size).toBe(0);
    expect(t.indexEntries("owner").size).toBe(0);
  });
});
