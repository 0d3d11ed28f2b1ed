import { AuthConfigError, createAuthCore } from "@latchkey/core";
import { describe, expect, it } from "vitest";
import { drizzleStore, type D1DatabaseBinding } from "./d1.ts";

// D1 has no way to tell other isolates about a change: createAuth refuses the lookup cache there unless its ttl is
// at most 5 s and the revocation lag is accepted explicitly (docs/cache.md). Nothing here reaches the database.
const unreachable = (): never => {
  throw new Error("the database is not used by createAuth");
};
// The store prepares its hot statements when it is built; running one would throw.
const statement = { bind: () => statement, all: unreachable, run: unreachable };
const binding: D1DatabaseBinding = { prepare: () => statement, batch: unreachable, exec: unreachable };
const options = { secret: "s".repeat(40), baseUrl: "https://app.example", database: drizzleStore({ binding }) };

function refusal(cache: Record<string, unknown>): AuthConfigError {
  try {
    createAuthCore({ ...options, cache });
  } catch (error) {
    if (error instanceof AuthConfigError) return error;
    throw error;
  }
  throw new Error("expected an AuthConfigError");
}

describe("the lookup cache on D1", () => {
  it("is refused with a clear error by default", () => {
    const error = refusal({});
    expect(error.field).toBe("cache");
    expect(error.message).toMatch(/"d1" store has none/);
    expect(error.message).toMatch(/acceptRevocationDelay/);
  });

  it("is refused with a ttl over 5 s, even when the delay is accepted, and without the acceptance", () => {
    expect(refusal({ ttl: "6s", acceptRevocationDelay: true }).field).toBe("cache");
    expect(refusal({ ttl: "5s" }).field).toBe("cache");
  });

  it("is accepted with ttl at most 5 s and acceptRevocationDelay: true", () => {
    const core = createAuthCore({ ...options, cache: { ttl: "5s", acceptRevocationDelay: true } });
    expect(core.cache?.stats()).toMatchObject({ bypassed: false, entries: 0 });
  });
});
