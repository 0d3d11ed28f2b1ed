import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  // Whole journeys (several argon2id hashes on a real database) can pass 5 s on a loaded 2-core machine.
  test: { name: "hono-adapter", testTimeout: 30_000 },
  // The package's `imports` map points at dist/; the tests run the Node variant from the sources.
  resolve: {
    alias: { "#scalar-script": fileURLToPath(new URL("./src/routes/docs/scalar-script.node.ts", import.meta.url)) },
  },
});
