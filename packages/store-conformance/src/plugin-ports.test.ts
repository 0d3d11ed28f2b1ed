import type { Store } from "@latchkey/core";
import { describe, expect, it } from "vitest";
import { type CaseContext, portOf } from "./plugin-ports.ts";

// A context whose skip records its note and throws, as Vitest's does.
function recordingContext() {
  const notes: Array<string | undefined> = [];
  const context: CaseContext = {
    skip(note) {
      notes.push(note);
      throw new Error("skipped");
    },
  };
  return { notes, context };
}

describe("portOf", () => {
  it("hands over the port when the store has it, without skipping", () => {
    const apiKeys = { create: async () => undefined };
    const { notes, context } = recordingContext();
    expect(portOf({ apiKeys } as unknown as Store, "apiKeys", context)).toBe(apiKeys);
    expect(notes).toEqual([]);
  });

  it("skips the running case, naming the port, when the store has none", () => {
    for (const port of ["apiKeys", "jwks", "audit", "twoFactor", "passkeys", "organizations"] as const) {
      const { notes, context } = recordingContext();
      expect(() => portOf({ users: {} } as unknown as Store, port, context)).toThrow("skipped");
      expect(notes).toEqual([`store has no ${port} port`]);
    }
  });
});
