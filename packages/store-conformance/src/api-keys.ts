import { describe } from "vitest";
import type { Store } from "@latchkey/core";
import { registerApiKeyCapCases, registerApiKeyRecordCases } from "./api-key-records.ts";
import { registerApiKeyRefillCases } from "./api-key-refills.ts";
import { registerApiKeyRerollCases } from "./api-key-rerolls.ts";
import { registerApiKeyUseCases } from "./api-key-uses.ts";

/** Conformance of the `api keys` port; registered by `runStoreConformance`. */
export function describeApiKeys(getStore: () => Store): void {
  describe("api keys", () => {
    registerApiKeyRecordCases(getStore);
    registerApiKeyUseCases(getStore);
    registerApiKeyRerollCases(getStore);
    registerApiKeyRefillCases(getStore);
    registerApiKeyCapCases(getStore);
  });
}
