import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

// Starts `latchkey serve` and uvicorn as processes: generous timeouts on a loaded machine.
export default defineProject({
  test: { name: "example-fastapi", testTimeout: 120_000, hookTimeout: 120_000 },
  resolve: { alias: workspaceSources() },
});
