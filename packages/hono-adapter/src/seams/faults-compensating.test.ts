import { describe } from "vitest";
import { compensatingMemoryStore } from "../../test/seams/harness.ts";
import { testStoreKind } from "../../test/test-stores.ts";
import { faultCases, underFaults } from "../../test/seams/under-faults.ts";

// D1 and a standalone MongoDB have no interactive transactions: `compensatingTransaction` stands in. The same
// flows and faults over the memory ports with that transaction (memory run only: it is the same code on any store).
describe.runIf(testStoreKind() === "memory")("a failure at every write step, with a compensating transaction", () => {
  for (const [name, fc] of faultCases) underFaults(name, fc, compensatingMemoryStore);
});
