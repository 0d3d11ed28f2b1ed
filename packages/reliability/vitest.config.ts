import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

// One file at a time (they are load tests, and each starts its own servers): a file's scenarios share two server
// processes per variant, a PostgreSQL cluster of the file's own (the outage scenarios stop and restart it, so it
// cannot be the run's shared one) and a redis-server.
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
