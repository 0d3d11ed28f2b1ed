import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

// The worker is bundled once per run (src/bundle-setup.ts); each test file starts the workerd instances it uses
// (src/worker-fixture.ts).
export default defineProject({
  test: {
    name: "example-cloudflare-workers",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["./src/bundle-setup.ts"],
  },
  resolve: { alias: workspaceSources() },
});
