import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "example-deno", testTimeout: 30_000 } });
