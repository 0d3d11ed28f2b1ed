import { defineConfig } from "vitest/config";

// One Vitest run, one project per package (the "projects" form that replaced vitest.workspace.ts).
export default defineConfig({
  test: {
    projects: ["packages/*", "examples/*", "bench"],
  },
});
