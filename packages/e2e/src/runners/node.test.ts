// Node runner: the suite as Vitest tests, in process, against the standalone handler.
import { describe, expect, it } from "vitest";
import { argon2idEngine } from "@latchkey/core";
import { createE2eAuth } from "../app.ts";
import { planSuite, registerSuite } from "../harness/runner.ts";
import { JOURNEYS } from "../journeys/index.ts";

const { target, plugins } = createE2eAuth();
const cases = await planSuite(target, JOURNEYS);

describe(`e2e on Node (features: ${plugins.join(", ") || "core only"})`, () => {
  registerSuite(cases, {
    test: (name, run) => it(name, run),
    // Every feature is installed here, so a journey that would be skipped is a failure, reported by name.
    skip: (name, reason) =>
      it(`${name} runs`, () => {
        throw new Error(`journey skipped on Node: ${reason}`);
      }),
  });

  it("installs every feature a journey needs (a renamed path cannot silently skip a journey)", () => {
    expect(cases.filter((c) => c.skipReason !== null).map((c) => `${c.name}: ${c.skipReason}`)).toEqual([]);
  });

  it("uses the native argon2id engine", () => {
    expect(argon2idEngine).toBe("native");
  });
});
