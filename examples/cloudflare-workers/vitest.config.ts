import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

export default defineProject({
  test: { name: "example-cloudflare-workers", testTimeout: 60_000, hookTimeout: 120_000 },
  resolve: { alias: workspaceSources() },
});
