import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

// One file, run in order: the scenarios share two server processes, a PostgreSQL cluster of their own (they stop
// and restart it, so it cannot be the run's shared one) and a redis-server.
export default defineProject({
  test: {
    name: "reliability",
    include: ["src/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
  resolve: { alias: workspaceSources() },
});
