import { defineConfig } from "vitest/config";

// One Vitest run, one project per package (the "projects" form that replaced vitest.workspace.ts).
// The global setup starts a throwaway PostgreSQL for the run (see test/global-setup.ts).
export default defineConfig({
  test: {
    projects: ["packages/*", "examples/*", "bench"],
    globalSetup: ["./test/global-setup.ts"],
  },
});
