import { describe, expect, it } from "vitest";
import { AuthError } from "@latchkey/core";
import { isD1Unavailable } from "../sqlite/errors.ts";
import type { D1DatabaseBinding } from "./binding.ts";
import { d1Store } from "./store.ts";

/** A D1 binding whose every statement fails with `message`, as the Workers runtime reports D1 errors. */
function failingBinding(message: string): D1DatabaseBinding {
  const fail = () => {
    throw new Error(message);
  };
  const statement = { bind: () => statement, all: fail, run: fail, raw: fail, first: fail };
  return { prepare: () => statement, batch: fail, exec: fail } as unknown as D1DatabaseBinding;
}

describe("D1 errors", () => {
  it.each([
    "D1_ERROR: NOSENTRY database is locked: SQLITE_BUSY",
    "D1_ERROR: Network connection lost.",
    "D1 DB is overloaded. Requests queued for too long.",
    "D1_ERROR: storage operation exceeded timeout which caused object to be reset.",
    "D1_ERROR: Failed to parse body as JSON, got: Error: internal error; reference = vkq8ll2ch98mgiiao5m9fb8l",
    "D1_ERROR: Cannot resolve D1 DB due to transient issue on remote node.",
  ])("%s: the database is unavailable (503), not an unexpected error", async (message) => {
    expect(isD1Unavailable(new Error("Failed query", { cause: new Error(message) }))).toBe(true);
    const store = d1Store(failingBinding(message));
    const error = await store.users.findByEmail("a@example.com").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe("DATABASE_UNAVAILABLE");
    await expect(store.ping()).rejects.toMatchObject({ code: "DATABASE_UNAVAILABLE" });
  });

  it("a constraint or a malformed statement is not unavailability: it stays the error it is", async () => {
    for (const message of [
      "D1_ERROR: UNIQUE constraint failed: users.email: SQLITE_CONSTRAINT",
      'D1_ERROR: near "selec": syntax error: SQLITE_ERROR',
    ]) {
      expect(isD1Unavailable(new Error(message))).toBe(false);
      const error = await d1Store(failingBinding(message))
        .users.findByEmail("a@example.com")
        .catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(AuthError);
    }
  });
});
