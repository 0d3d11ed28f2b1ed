import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

export default defineProject({
  // Whole journeys (several argon2id hashes on a real database) can pass 5 s on a loaded 2-core machine.
  test: { name: "hono-adapter", testTimeout: 30_000 },
  // The workspace packages and the `#imports` files from their sources (the Node variants).
  resolve: { alias: workspaceSources() },
});
