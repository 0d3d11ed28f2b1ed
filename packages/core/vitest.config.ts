import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

// The service tests run over a real store. The memory store's sources are borrowed through an alias rather than a
// package dependency, so core has no edge to memory-store in the package graph (memory-store depends on core), and
// both resolve `@latchkey/core` to these same sources: one copy of every class in a test.
export default defineProject({
  test: { name: "core" },
  resolve: { alias: workspaceSources() },
});
