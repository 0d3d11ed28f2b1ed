import pg from "pg";
import { describe, expect, it } from "vitest";
import { hasWire, leanQueryOf, WIRE } from "./lean-query.ts";

// Lean queries write node-postgres' wire messages themselves (round-trips.test.ts drives them against PostgreSQL).
// On a node-postgres whose connection lacks a method they call, every statement must take pg's own path instead.

describe("the node-postgres wire a lean query needs", () => {
  const proto = (pg as unknown as { Connection: { prototype: Record<string, unknown> } }).Connection.prototype;

  it("is there on the installed node-postgres, so named statements run lean", () => {
    expect(hasWire(proto)).toBe(true);
    expect(WIRE).toBe(true);
    expect(leanQueryOf({ name: "s1", text: "select $1::int as n" }, [1])).not.toBeNull();
  });

  it("is missing when any wire method is, or there is no prototype", () => {
    for (const name of ["parse", "bind", "describe", "execute", "sync"]) {
      const without = { ...Object.fromEntries(Object.getOwnPropertyNames(proto).map((k) => [k, proto[k]])) };
      delete without[name];
      expect(hasWire(without)).toBe(false);
    }
    expect(hasWire(undefined)).toBe(false);
    expect(hasWire({})).toBe(false);
  });
});
