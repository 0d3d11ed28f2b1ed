import { defineConfig } from "vitest/config";

// The HTTP suites of every feature run once per store: memory (the hono-adapter project itself), a real libSQL
// file and a real PostgreSQL (the global setup starts a throwaway cluster).
const httpSuiteOn = (store: "sqlite" | "postgres") => ({
  extends: "./packages/hono-adapter/vitest.config.ts",
  test: { name: `hono-adapter (${store})`, root: "./packages/hono-adapter", env: { LATCHKEY_TEST_STORE: store } },
});

// One Vitest run, one project per package (the "projects" form that replaced vitest.workspace.ts). The SvelteKit and
// Astro examples are npm projects of their own (they need a newer Node than the workspace's): the consumer tests
// build and run them from the packed tarballs (test/consumers).
// The global setup starts a throwaway PostgreSQL for the run (see test/global-setup.ts).
export default defineConfig({
  test: {
    projects: [
      "packages/*",
      "examples/*",
      "!examples/sveltekit",
      "!examples/astro",
      httpSuiteOn("sqlite"),
      httpSuiteOn("postgres"),
      "bench",
      "test/consumers",
    ],
    globalSetup: ["./test/global-setup.ts"],
    // After Vitest's summary: every skipped test, counted and explained; an unexplained skip fails the run.
    reporters: ["default", "./test/skip-summary-reporter.ts"],
  },
});
