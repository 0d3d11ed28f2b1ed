import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "example-cloudflare-workers", testTimeout: 60_000, hookTimeout: 120_000 },
});
