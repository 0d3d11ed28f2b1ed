import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

// The worker is bundled once per run (src/bundle-setup.ts); each test file starts the workerd instances it uses
// (src/worker-fixture.ts). Not isolated: the files of a worker share the modules they import (Miniflare, the oidc
// provider, the e2e journeys) instead of loading them again for each file; the fixture's state is set per file.
export default defineProject({
  test: {
    name: "example-cloudflare-workers",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["./src/bundle-setup.ts"],
    isolate: false,
  },
  resolve: { alias: workspaceSources() },
});
