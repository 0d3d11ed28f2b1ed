import { defineProject } from "vitest/config";

// npm installs, a Next.js build and several runtimes: one file, sequential, generous timeouts.
export default defineProject({ test: { name: "consumers", testTimeout: 300_000, hookTimeout: 600_000 } });
