import { describe, expect, it } from "vitest";
import { createTestAuth } from "../../test/test-auth.ts";

// Runs on every store the HTTP suites use (memory, libSQL, PostgreSQL).

describe("event listeners may return anything", () => {
  it("bug: `(e) => list.push(e)` (returns a number) no longer fails the request; a returned promise is awaited", async () => {
    const t = createTestAuth();
    const seen: unknown[] = [];
    let settled = false;
    t.auth.events.on("UserSignedUp", (e) => seen.push(e));
    t.auth.events.on("UserSignedUp", () => ({
      then: (resolve: () => void) => setTimeout(() => ((settled = true), resolve()), 5),
    }));
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      await t.signUp("ada@example.com");
    } finally {
      console.error = original;
    }
    expect(seen).toHaveLength(1);
    expect(settled).toBe(true);
    expect(errors).toEqual([]);
  });
});
