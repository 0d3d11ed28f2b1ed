import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

// Ten journeys through the route exports, argon2id included: a loaded 2-core machine can pass 5 s.
export default defineProject({
  test: { name: "example-nextjs", testTimeout: 30_000 },
  resolve: { alias: workspaceSources() },
});
