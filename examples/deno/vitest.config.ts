import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

export default defineProject({
  test: { name: "example-deno", testTimeout: 30_000 },
  resolve: { alias: workspaceSources() },
});
