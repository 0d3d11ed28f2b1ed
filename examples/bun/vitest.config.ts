import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "example-bun", testTimeout: 30_000 } });
