import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The service tests run over a real store. The memory store's sources are borrowed through an alias rather than a
// package dependency, so core has no edge to memory-store in the package graph (memory-store depends on core), and
// both resolve `@latchkey/core` to these same sources: one copy of every class in a test.
export default defineProject({
  test: { name: "core" },
  resolve: {
    alias: {
      "@latchkey/memory-store": source("../memory-store/src/index.ts"),
      "@latchkey/core": source("./src/index.ts"),
      // Node's variants of the runtime-selected files, from the sources (the package's `imports` map points at dist/).
      "#native-argon2": source("./src/password/native-argon2.node.ts"),
      "#native-jws": source("./src/jwt/native-jws.node.ts"),
    },
  },
});
