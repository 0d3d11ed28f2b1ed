import { defineProject } from "vitest/config";

// npm installs, a Next.js build and several runtimes: the tarballs packed and the shared projects installed once per
// run (consumers-setup.ts), the files one at a time (they share those projects), generous timeouts.
export default defineProject({
  test: {
    name: "consumers",
    testTimeout: 300_000,
    hookTimeout: 600_000,
    globalSetup: ["./consumers-setup.ts"],
    fileParallelism: false,
  },
});
