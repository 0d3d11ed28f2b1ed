import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

export default defineProject({
  test: { name: "example-fastify", testTimeout: 30_000 },
  resolve: { alias: workspaceSources() },
});
