import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "hono-adapter" },
  // The package's `imports` map points at dist/; the tests run the Node variant from the sources.
  resolve: { alias: { "#scalar-script": fileURLToPath(new URL("./src/routes/docs/scalar-script.node.ts", import.meta.url)) } },
});
